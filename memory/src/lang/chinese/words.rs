//! Chinese word lists the rules are built from and claims are mapped
//! by: family words with their canonical predicates, pets, events,
//! favourite categories, job titles, and the forms a name takes when it
//! is set beside a relation with no "叫".

/// Family words and the canonical predicate each names, longer words
/// first where one starts another.
pub(super) const FAMILY: &[(&str, &str)] = &[
    ("姐姐", "sister"),
    ("妹妹", "sister"),
    ("哥哥", "brother"),
    ("弟弟", "brother"),
    ("妈妈", "mother"),
    ("母亲", "mother"),
    ("爸爸", "father"),
    ("父亲", "father"),
    ("妻子", "wife"),
    ("老婆", "wife"),
    ("太太", "wife"),
    ("丈夫", "husband"),
    ("老公", "husband"),
    ("男朋友", "boyfriend"),
    ("男友", "boyfriend"),
    ("女朋友", "girlfriend"),
    ("女友", "girlfriend"),
    ("儿子", "son"),
    ("女儿", "daughter"),
    ("最好的朋友", "best_friend"),
    ("朋友", "friend"),
    ("表姐", "cousin"),
    ("表妹", "cousin"),
    ("表哥", "cousin"),
    ("表弟", "cousin"),
    ("堂姐", "cousin"),
    ("堂妹", "cousin"),
    ("堂哥", "cousin"),
    ("堂弟", "cousin"),
    ("阿姨", "aunt"),
    ("姑姑", "aunt"),
    ("叔叔", "uncle"),
    ("舅舅", "uncle"),
    ("奶奶", "grandmother"),
    ("外婆", "grandmother"),
    ("姥姥", "grandmother"),
    ("爷爷", "grandfather"),
    ("外公", "grandfather"),
    ("姥爷", "grandfather"),
    ("老板", "boss"),
    ("上司", "boss"),
    ("同事", "colleague"),
    ("室友", "roommate"),
    ("未婚妻", "fiancee"),
    ("未婚夫", "fiance"),
    ("外甥女", "niece"),
    ("侄女", "niece"),
    ("外甥", "nephew"),
    ("侄子", "nephew"),
];

pub(super) const PETS: &str =
    "小狗|小猫|狗狗|猫咪|狗|猫|鹦鹉|小鸟|鸟|仓鼠|兔子|金鱼|鱼|乌龟|蛇|马|豚鼠";

/// Event verbs and their canonical predicates.
pub(super) const EVENTS: &[(&str, &str)] = &[
    ("去了", "went_to"),
    ("参加了", "attended"),
    ("参观了", "visited"),
    ("访问了", "visited"),
    ("报名参加了", "signed_up_for"),
    ("报名了", "signed_up_for"),
    ("完成了", "finished"),
    ("毕业于", "graduated_from"),
    ("开始学", "started"),
    ("开始了", "started"),
];

/// Favourite categories and their canonical names.
pub(super) const FAVORITES: &[(&str, &str)] = &[
    ("颜色", "color"),
    ("食物", "food"),
    ("菜", "food"),
    ("电影", "movie"),
    ("书", "book"),
    ("运动", "sport"),
    ("歌手", "singer"),
    ("歌", "song"),
    ("动物", "animal"),
    ("城市", "city"),
    ("季节", "season"),
    ("水果", "fruit"),
    ("饮料", "drink"),
    ("乐队", "band"),
    ("球队", "team"),
];

/// Job titles end so: "药剂师", "程序员", "医生".
pub(super) const TITLE: &str = r"(?P<o>\p{Han}{0,6}?(?:师|员|医生|护士|经理|作家|记者|司机|工人|学生|教授|主管|总监|会计|演员|歌手|警察|农民|店长|老板|画家|研究员|牙医|兽医|顾问|科学家))";

/// A name set beside a relation with no "叫" ("我男朋友小李",
/// "我同事王芳", "我女儿艾玛"): a familiar form (小李, 老王, 阿明), one of
/// the common surnames and a given name of one or two characters, or a
/// name transliterated from another language, two or three of the
/// characters transliteration uses (艾玛, 杰克, 索菲亚), or a familiar
/// name said by doubling a character (乐乐, [`doubled_names`]). Anything else
/// after a relation word is too often a word ("我妹妹很喜欢猫"). What may
/// follow it is [`NAME_FOLLOWS`]; a rule that says what comes next itself
/// ("我女儿小雨满六岁了") takes the name alone.
pub(super) const APPOSED_NAME: &str = concat!(
    r"(?P<o>{DOUBLED}|(?:小|老|阿)\p{Han}|",
    r"[艾爱奥巴贝彼波伯布黛丹迪蒂恩菲芬弗盖格哈赫亨霍吉杰卡凯柯科克肯库拉莱兰朗劳勒蕾莉琳卢鲁露伦罗洛玛迈麦曼梅蒙米莫姆穆娜妮尼诺欧帕佩皮珀齐奇乔琼萨塞桑森莎珊斯索塔泰坦汤特提汀托瓦维韦温沃乌西希雅亚扬伊尤约詹珍卓兹佐]{2,3}?|",
    r"(?:王|李|张|刘|陈|杨|黄|赵|吴|周|徐|孙|马|朱|胡|郭|何|高|林|罗|郑|梁|谢|宋|唐|许|韩|冯|邓|曹|彭|曾|肖|田|董|袁|潘|于|蒋|蔡|余|杜|叶|程|苏|魏|吕|丁|任|沈|姚|卢|姜|崔|钟|谭|陆|汪|范|金|石|廖|贾|夏|韦|付|方|白|邹|孟|熊|秦|邱|江|尹|薛|闫|段|雷|侯|龙|史|陶|黎|贺|顾|毛|郝|龚|邵|万|钱|严|覃|武|戴|莫|孔|向|汤)\p{Han}{1,2}?)",
);

/// Characters a familiar name doubles ("乐乐", "豆豆", "朵朵"), the
/// `{DOUBLED}` of [`APPOSED_NAME`]: doubled, each is a name more often
/// than a word. The kin words (妈妈, 哥哥) and adverbs (天天, 常常, 刚刚)
/// that double are not here.
const DOUBLED: &str = "乐豆朵点贝甜果糖妞欢笑萌丫圆壮毛多安可芊婷莉丽娜菲晶冰洋亮楠琪悠欣佳";

/// [`DOUBLED`]'s names as alternatives ("乐乐|豆豆|..."): the regex crate
/// has no backreference to say "a character twice".
pub(super) fn doubled_names() -> String {
    DOUBLED
        .chars()
        .map(|c| format!("{c}{c}"))
        .collect::<Vec<_>>()
        .join("|")
}

/// What may follow an [`APPOSED_NAME`]: the clause's end or its next word.
pub(super) const NAME_FOLLOWS: &str = r"(?:$|[^\p{Han}]|她|他|是|在|也|和|跟|住|今|明|昨|上|下|要|会|刚|的|说|最|很|每|从|去|做|当|满|[一二三四五六七八九十])";

/// Words an `APPOSED_NAME` would take for a name: adverbs and nouns that
/// begin with a surname or a familiar prefix ("我哥哥马上要走").
pub(super) const NOT_NAMES: &[&str] = &[
    "马上", "高兴", "方便", "任何", "万一", "向来", "白天", "小学", "小时", "老家", "老师", "老板",
    "阿姨", "周末", "江湖", "金钱",
];
