//! How a name (or a word that stands for a thing, "dog") is found in text
//! as people write it: in any case, with a possessive, genitive or plural
//! `s` ("Quentin's", "Quentins", "dogs"), as a whole word in scripts that
//! space their words and anywhere in those that do not (Chinese,
//! Japanese). Forget looks for a subject so; consolidation finds which
//! stored value an ending ("my dog passed away") is about.

/// The written forms of one subject, each matched on its own.
#[derive(Clone, Debug, Default)]
pub(crate) struct NameForms {
    /// Lower-case forms, longest first (a full name is cut before a part).
    forms: Vec<Vec<char>>,
}

impl NameForms {
    /// The forms among `names` that are worth looking for (blank ones are
    /// dropped, repeats and case ignored).
    pub(crate) fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> NameForms {
        let mut forms: Vec<Vec<char>> = Vec::new();
        for name in names {
            let form: Vec<char> = lower(name.split_whitespace().collect::<Vec<_>>().join(" "));
            if !form.is_empty() && !forms.contains(&form) {
                forms.push(form);
            }
        }
        forms.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        NameForms { forms }
    }

    /// The forms, as matched (lower case).
    pub(crate) fn forms(&self) -> Vec<String> {
        self.forms.iter().map(|f| f.iter().collect()).collect()
    }

    /// Whether `text` names the subject.
    pub(crate) fn occur_in(&self, text: &str) -> bool {
        let text = lower(text);
        self.forms.iter().any(|form| !spans(&text, form).is_empty())
    }

    /// `text` with every mention of the subject replaced by `…`: what a
    /// kept sentence says once the subject is gone from it.
    pub(crate) fn cut_from(&self, text: &str) -> String {
        // Lower-casing can change a character's length (`İ`): match on
        // characters that keep it, so spans index the original text.
        let original: Vec<char> = text.chars().collect();
        let lowered: Vec<char> = original.iter().map(|&c| lower_char(c)).collect();
        let mut cut = vec![false; original.len()];
        for form in &self.forms {
            for (from, to) in spans(&lowered, form) {
                cut[from..to].iter_mut().for_each(|c| *c = true);
            }
        }
        let mut out = String::with_capacity(text.len());
        let mut in_cut = false;
        for (c, &gone) in original.iter().zip(&cut) {
            if gone {
                if !in_cut {
                    out.push('…');
                }
            } else {
                out.push(*c);
            }
            in_cut = gone;
        }
        out
    }
}

fn lower(text: impl AsRef<str>) -> Vec<char> {
    text.as_ref().chars().map(lower_char).collect()
}

/// One character in lower case, kept whole where lower case would be
/// several characters.
fn lower_char(c: char) -> char {
    let mut lowered = c.to_lowercase();
    match (lowered.next(), lowered.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

/// Scripts written without spaces between words: a name there is found
/// anywhere, not only between word boundaries.
fn unspaced(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0x20000..=0x2FA1F) // CJK extensions B..
}

fn word_char(c: char) -> bool {
    c.is_alphanumeric() && !unspaced(c)
}

/// Where `form` occurs in `text` as a name, possessive ending included:
/// `(from, to)` in characters.
fn spans(text: &[char], form: &[char]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    if form.is_empty() || form.len() > text.len() {
        return out;
    }
    let bounded_start = form.first().copied().is_some_and(word_char);
    let bounded_end = form.last().copied().is_some_and(word_char);
    let mut at = 0;
    while at + form.len() <= text.len() {
        if &text[at..at + form.len()] != form
            || (bounded_start && at > 0 && word_char(text[at - 1]))
        {
            at += 1;
            continue;
        }
        let end = at + form.len();
        let found = if bounded_end {
            possessive_end(text, end)
        } else {
            Some(end)
        };
        match found {
            Some(to) => {
                out.push((at, to));
                at = to;
            }
            None => at += 1,
        }
    }
    out
}

/// Where a name that ends at `end` ends with its possessive or genitive
/// ending (`'s`, `’s`, `'`, `s`), or `None` when a word goes on there.
fn possessive_end(text: &[char], end: usize) -> Option<usize> {
    let boundary = |i: usize| text.get(i).is_none_or(|&c| !word_char(c));
    if boundary(end) {
        let apostrophe = text.get(end).is_some_and(|&c| c == '\'' || c == '’');
        if apostrophe && text.get(end + 1) == Some(&'s') && boundary(end + 2) {
            return Some(end + 2);
        }
        return Some(end);
    }
    (text.get(end) == Some(&'s') && boundary(end + 1)).then_some(end + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forms(names: &[&str]) -> NameForms {
        NameForms::new(names.iter().copied())
    }

    #[test]
    fn a_name_is_found_as_people_write_it() {
        let quentin = forms(&["Quentin Zorblax", "Quentin", "Zorblax"]);
        for text in [
            "I told quentin about my new job",
            "Quentin's birthday is in May",
            "QUENTIN’s car",
            "Zorblax is a funny surname",
            "Quentins Geburtstag ist im Mai",
            "(quentin zorblax)",
        ] {
            assert!(quentin.occur_in(text), "{text}");
        }
        for text in ["Quentina called", "the zorblaxian empire", "I quit"] {
            assert!(!quentin.occur_in(text), "{text}");
        }
    }

    #[test]
    fn a_name_in_an_unspaced_script_is_found_inside_words() {
        let zhang = forms(&["张三"]);
        assert!(zhang.occur_in("我昨天见了张三和李四"));
        assert!(!zhang.occur_in("我昨天见了李四"));
        assert_eq!(zhang.cut_from("我昨天见了张三和李四"), "我昨天见了…和李四");
    }

    #[test]
    fn cutting_leaves_the_rest_of_the_sentence() {
        let tencent = forms(&["Tencent"]);
        assert_eq!(
            tencent.cut_from("Actually I work at Alibaba, not Tencent's Shenzhen office."),
            "Actually I work at Alibaba, not … Shenzhen office."
        );
        let quentin = forms(&["quentin zorblax", "quentin"]);
        assert_eq!(
            quentin.cut_from("Quentin Zorblax and quentin's dog"),
            "… and … dog"
        );
        assert_eq!(forms(&["İlker"]).cut_from("İlker said hi"), "… said hi");
    }

    #[test]
    fn blank_and_repeated_forms_are_dropped() {
        let f = forms(&["", "  ", "Mia", "mia", " MIA "]);
        assert_eq!(f.forms(), ["mia"]);
        assert!(!forms(&[]).occur_in("anything"));
    }
}
