//! A person's message's sentences, embedded one by one: the sentence of
//! a long message that answers a question is found by its own meaning
//! ("I've also started learning how to play the piano" for "What instruments
//! does Tim play?", said after three sentences about school and books),
//! where the passage's one vector averages it with the rest.

use chronolog_engine::{Interval, WriteTxn};

use super::passage::Said;
use crate::lang::Language;
use crate::schema::{Relations, Sentence};

/// A piece of fewer words than this takes the next sentence too ("Wow!
/// Did you see that band?" is one piece): alone it says too little to
/// place, and every piece is a row and a vector. Words, not characters,
/// so that it reads the same in every language (a Chinese sentence says
/// in 20 characters what an English one says in 80). Measured first in
/// characters with a throwaway probe (each piece's best cosine as the
/// episode's score, the evidence among a question's first 20 episodes):
/// LoCoMo dev (bge-small-en) 690 / 734 / 723 of 1,103 evidence messages
/// with pieces of at least 0 / 80 / 160 characters (passages: 639);
/// LongMemEval dev, 40 questions (potion-base-8M), 68 / 68 / 68 of 75
/// (passages: 59), with 222,747 / 144,373 / 94,955 pieces for 20,780
/// messages. 14 words is about 80 English characters.
pub(crate) const MIN_PIECE_WORDS: usize = 14;

/// The pieces of `text` as `lang` splits its sentences, each short one
/// joined with the next, in order.
pub(crate) fn pieces(lang: &dyn Language, text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut words = 0;
    for sentence in lang.sentences(text) {
        let more = lang.words(sentence).len();
        match out.last_mut() {
            Some(last) if words < MIN_PIECE_WORDS => {
                words += more;
                last.push(' ');
                last.push_str(sentence);
            }
            _ => {
                words = more;
                out.push(sentence.to_string());
            }
        }
    }
    out
}

/// Whether a message by `role` is split into sentences. An assistant's
/// replies are not: they are long lists of advice whose many pieces each
/// match some question's words by chance, so a best-of-its-pieces score
/// lifts them over the messages that answer (measured on LongMemEval dev,
/// where they are: docs/evaluation.md). What a person said of themselves
/// is what a memory is asked about; the assistant's replies are still
/// found whole, by their passages.
pub(crate) fn splits(role: &str) -> bool {
    !role.eq_ignore_ascii_case("assistant")
}

/// Writes the sentence rows of `said`, read in `lang`.
pub(crate) fn write(
    txn: &mut WriteTxn<'_>,
    rel: &Relations,
    said: &Said<'_>,
    lang: &dyn Language,
) -> chronolog_engine::Result<()> {
    if !splits(said.role) {
        return Ok(());
    }
    let valid = Interval::starting(said.at);
    for piece in pieces(lang, said.text) {
        let row = Sentence {
            episode: said.episode.to_string(),
            tenant: said.tenant.to_string(),
            role: said.role.to_string(),
            text: format!("{}: {piece}", said.role),
        };
        let values = row.to_values(txn)?;
        txn.assert(rel.sentence, values, valid, None)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Lang;

    #[test]
    fn an_assistant_is_not_split_in_any_spelling_and_people_are() {
        assert!(!splits("assistant") && !splits("Assistant"));
        assert!(splits("user") && splits("Caroline"));
    }

    #[test]
    fn short_sentences_join_the_next_and_long_ones_stand_alone() {
        let text = "Wow! Did you see that band? Things have been great since we last talked, \
                    I've been reading a bunch of fantasy books. I've also started learning how \
                    to play the piano, which is a great way to relax after school.";
        let pieces = pieces(Lang::English.reader(), text);
        assert_eq!(
            pieces,
            [
                "Wow! Did you see that band? Things have been great since we last talked, \
                 I've been reading a bunch of fantasy books.",
                "I've also started learning how to play the piano, which is a great way to \
                 relax after school."
            ]
        );
    }

    #[test]
    fn chinese_sentences_are_split_at_their_own_stops() {
        let text = "我最近开始学钢琴了，每天晚上练习一个小时，老师说我进步很快，我自己也觉得越来越喜欢弹琴，\
                    周末还会去琴行看看新到的电子琴和各种乐谱。另外我在一家科技公司找到了新工作，\
                    负责硬件团队的机械设计，同事们都很友好，工作环境也比以前好多了，我很满意。";
        let pieces = pieces(Lang::Chinese.reader(), text);
        assert_eq!(pieces.len(), 2, "{pieces:?}");
        assert!(pieces[1].starts_with("另外"), "{pieces:?}");
    }
}
