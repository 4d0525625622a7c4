//! The channels a search ranks candidates by, and their weights.

use crate::tuning::Tuning;

/// Where candidates come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Channel {
    /// `near` over episodes, in the engine's embedder's space (an English
    /// model by default): for questions in English.
    EpisodeMeaning,
    /// `near` over what people said, sentence by sentence, each message by
    /// its best, in the engine's space: the sentence that answers inside a
    /// long message (an assistant's replies are not split).
    SentenceMeaning,
    /// `near` over episodes in the multilingual space: for a question in
    /// another language, and for any question to a memory in another
    /// language (a question in one language finds messages in another).
    MultilingualMeaning,
    /// `bm25` over episodes.
    EpisodeWords,
    /// `bm25` over the episodes said by a person the question names (who
    /// did what is mostly in that person's own words).
    SpeakerWords,
    /// `near` over the episodes said by a person the question names.
    SpeakerMeaning,
    /// `bm25` over the episodes said by the memory's user, for a question
    /// about them in the first person ("Where do I work?", not "What did
    /// you recommend?") where someone else speaks too: an assistant's
    /// replies echo the user's topics at length and outrank their words.
    UserWords,
    /// `near` over the episodes said by the memory's user.
    UserMeaning,
    /// `near` over facts.
    FactMeaning,
    /// `bm25` over facts.
    FactWords,
    /// `hops` from the question's entities: facts about them, episodes
    /// naming them.
    Graph,
    /// `bm25` over the episodes said in the period the question names
    /// ("What did Tim say on 16 November, 2023?").
    SaidThen,
    /// `near` over the episodes said in that period ("What did Joanna
    /// achieve in January 2022?" is "I finished my first screenplay").
    SaidThenMeaning,
    /// The tenant's latest episodes.
    Recency,
    /// The tenant's most salient facts (decayed to now).
    Salience,
}

impl Channel {
    /// Every channel.
    pub const ALL: [Channel; 15] = [
        Channel::EpisodeMeaning,
        Channel::SentenceMeaning,
        Channel::MultilingualMeaning,
        Channel::EpisodeWords,
        Channel::SpeakerWords,
        Channel::SpeakerMeaning,
        Channel::UserWords,
        Channel::UserMeaning,
        Channel::FactMeaning,
        Channel::FactWords,
        Channel::Graph,
        Channel::SaidThen,
        Channel::SaidThenMeaning,
        Channel::Recency,
        Channel::Salience,
    ];

    /// Its name in reports and options.
    pub fn name(self) -> &'static str {
        match self {
            Channel::EpisodeMeaning => "episode_meaning",
            Channel::SentenceMeaning => "sentence_meaning",
            Channel::MultilingualMeaning => "multilingual_meaning",
            Channel::EpisodeWords => "episode_words",
            Channel::SpeakerWords => "speaker_words",
            Channel::SpeakerMeaning => "speaker_meaning",
            Channel::UserWords => "user_words",
            Channel::UserMeaning => "user_meaning",
            Channel::FactMeaning => "fact_meaning",
            Channel::FactWords => "fact_words",
            Channel::Graph => "graph",
            Channel::SaidThen => "said_then",
            Channel::SaidThenMeaning => "said_then_meaning",
            Channel::Recency => "recency",
            Channel::Salience => "salience",
        }
    }

    /// The channel named `name`.
    pub fn from_name(name: &str) -> Option<Channel> {
        Channel::ALL.into_iter().find(|c| c.name() == name)
    }

    /// Its weight in the fusion ([`Tuning`]'s `weight_*`): the episode
    /// channels carry the evidence; facts, the graph, recency and salience
    /// only reorder near the top (alone they find 4-7% of it).
    pub fn weight(self, tuning: &Tuning) -> f64 {
        match self {
            Channel::EpisodeWords => tuning.weight_episode_words,
            Channel::SpeakerWords => tuning.weight_speaker_words,
            Channel::SpeakerMeaning => tuning.weight_speaker_meaning,
            Channel::UserWords | Channel::UserMeaning => tuning.weight_user,
            // The same channel in another space: no weight of its own.
            Channel::EpisodeMeaning | Channel::MultilingualMeaning => tuning.weight_episode_meaning,
            Channel::SentenceMeaning => tuning.weight_sentence_meaning,
            Channel::FactWords => tuning.weight_fact_words,
            Channel::FactMeaning => tuning.weight_fact_meaning,
            Channel::Graph => tuning.weight_graph,
            Channel::SaidThen | Channel::SaidThenMeaning => tuning.weight_said_then,
            Channel::Recency => tuning.weight_recency,
            Channel::Salience => tuning.weight_salience,
        }
    }
}
