//! The rules lookup: a player's question as typed at the table ("who goes
//! first", "can I shoot into melee", "panicking?") matched against a
//! ruleset's rules entries, upgrades, profiles and abilities.
//!
//! Words are compared whole after English stemming ("charging" finds
//! "charge", "saves" finds "save"), question words are ignored, an entry
//! matching more of the words ranks first, rare words count more than
//! common ones (inverse document frequency), and a word that matches
//! nothing is tried against the vocabulary with one or two letters wrong.

use std::collections::{HashMap, HashSet};

use rust_stemmers::{Algorithm, Stemmer};

use super::ruleset::Ruleset;

/// Words of a question that name no rule.
const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "an", "and", "any", "are", "as", "at", "be", "before", "by", "can",
    "could", "did", "do", "does", "for", "from", "get", "gets", "happen", "happens", "have", "how",
    "i", "if", "in", "into", "is", "it", "its", "many", "may", "me", "much", "must", "my", "of",
    "on", "or", "our", "should", "so", "that", "the", "their", "them", "then", "there", "they",
    "this", "to", "us", "was", "we", "what", "whats", "when", "where", "which", "who", "whom",
    "why", "will", "with", "work", "works", "you", "your",
];

/// Weight of a word found in an entry's title or id, for a one-word title; a
/// longer title is about each of its words less ("Artillery wins a combat"
/// is less about winning than "Victory"): see [`TITLE_LENGTH_POWER`].
const TITLE_WEIGHT: f64 = 3.0;
/// How much a longer title is about each of its words less: the title weight
/// is divided by its word count to this power.
const TITLE_LENGTH_POWER: f64 = 0.5;
/// Weight of a word found among an entry's keywords.
const KEYWORD_WEIGHT: f64 = 2.0;
/// Weight of a word found in an entry's text.
const TEXT_WEIGHT: f64 = 1.0;
/// Weight of a word found only in a ruling (often about the app's procedure).
const RULING_WEIGHT: f64 = 0.5;
/// Added when the question is the entry's title ("shooting" -> Shooting) or
/// one of its keywords of several words ("hand to hand" -> Melee; a one-word
/// keyword is only a word, and the word already counts).
const PHRASE_MATCH_BONUS: f64 = 3.0;
/// Shortest last word matched as the start of a word: the box searches as
/// the player types, so "panic" already finds "panicked".
const PREFIX_MIN: usize = 3;
/// A last word that only starts a word of an entry scores this fraction of
/// the rarest whole-word match (the player may still be typing another word).
const PREFIX_FACTOR: f64 = 0.8;
/// Shortest word tried with a letter wrong ("panik" -> "panic"); shorter
/// words are too often other words ("walk" is not "wall").
const TYPO_MIN: usize = 5;
/// Words this long may have two letters wrong ("initative").
const TWO_TYPOS_MIN: usize = 7;
/// Longest word tried for typos: no rule word is longer, and the comparison
/// runs against every word of the ruleset.
const TYPO_MAX: usize = 24;
/// Question words looked at (the rest of a pasted paragraph is ignored): the
/// search runs every frame while the lookup is open.
const MAX_QUESTION_WORDS: usize = 16;

/// What kind of thing a lookup hit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum HitKind {
    /// A rules entry.
    Rule,
    /// An upgrade, option or passive skill.
    Upgrade,
    /// An ability bought with cards.
    Ability,
    /// A unit profile (its stats).
    Profile,
}

impl HitKind {
    /// Rules entries answer questions best; the rest come after at equal
    /// relevance.
    fn weight(self) -> f64 {
        match self {
            HitKind::Rule => 1.0,
            HitKind::Upgrade | HitKind::Ability => 0.9,
            HitKind::Profile => 0.8,
        }
    }
}

/// One lookup result, ready to show.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// What it is.
    pub kind: HitKind,
    /// Its id in the ruleset.
    pub id: String,
    /// Title shown to players ("Upgrade: Skirmisher" for non-rules).
    pub title: String,
    /// The text.
    pub text: String,
    /// The ruling that settles a gap, for rules entries that have one.
    pub ruling: Option<String>,
}

/// A searchable item: the hit and its stemmed words by field weight.
struct Doc {
    hit: Hit,
    /// (weight, stems, raw words) per field, heaviest first.
    fields: Vec<(f64, HashSet<String>, HashSet<String>)>,
    /// The title as a [`phrase`], to spot a question that is the title or
    /// starts it.
    title: String,
    /// Keywords of several words as [`phrase`]s, to spot a question that is
    /// one of them.
    phrases: Vec<String>,
    /// Keywords that are a question about one word ("how do I win"): the
    /// word as a [`phrase`] and the question's words. A question matches
    /// one when it asks about the same word with a question word in common
    /// ("how many cards do I get" and "how many cards", not "shooting" and
    /// "who can I shoot").
    questions: Vec<(String, HashSet<String>)>,
}

/// `text` as a comparable phrase: its words without question words,
/// stemmed, joined by spaces.
fn phrase(stemmer: &Stemmer, text: &str) -> String {
    let stems: Vec<String> = words(text)
        .iter()
        .filter(|w| !STOP_WORDS.contains(&w.as_str()))
        .map(|w| stemmer.stem(w).into_owned())
        .collect();
    stems.join(" ")
}

/// The question words of `text` ("how", "many").
fn question_words(text: &str) -> HashSet<String> {
    words(text)
        .into_iter()
        .filter(|w| STOP_WORDS.contains(&w.as_str()))
        .collect()
}

/// The words of `text`: lower case, apostrophes dropped ("can't" -> "cant"),
/// split on anything not a letter or digit; a hyphenated word also counts
/// joined ("re-roll" -> "re", "roll", "reroll").
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for chunk in text.split_whitespace() {
        let chunk: String = chunk
            .to_lowercase()
            .chars()
            .filter(|c| *c != '\'' && *c != '\u{2019}')
            .collect();
        let parts: Vec<&str> = chunk
            .split(|c: char| !c.is_alphanumeric())
            .filter(|p| !p.is_empty())
            .collect();
        if parts.len() > 1 && chunk.contains('-') {
            out.push(parts.concat());
        }
        // Dice faces are written as digits in the rules.
        out.extend(parts.into_iter().map(|p| match p {
            "one" => "1".to_string(),
            "two" => "2".to_string(),
            "three" => "3".to_string(),
            "four" => "4".to_string(),
            "five" => "5".to_string(),
            "six" => "6".to_string(),
            // Spellings too short for the typo match.
            "thru" => "through".to_string(),
            other => other.to_string(),
        }));
    }
    out
}

fn field(stemmer: &Stemmer, weight: f64, text: &str) -> (f64, HashSet<String>, HashSet<String>) {
    let raw: HashSet<String> = words(text).into_iter().collect();
    let stems = raw.iter().map(|w| stemmer.stem(w).into_owned()).collect();
    (weight, stems, raw)
}

/// Every searchable item of `rs`, rules entries first, each kind in file order.
fn docs(rs: &Ruleset, stemmer: &Stemmer) -> Vec<Doc> {
    let mut out = Vec::new();
    let mut add = |hit: Hit, title: &str, keywords: &[String]| {
        let title_words = words(title)
            .iter()
            .filter(|w| !STOP_WORDS.contains(&w.as_str()))
            .count()
            .max(1);
        let mut fields = vec![
            field(
                stemmer,
                TITLE_WEIGHT / (title_words as f64).powf(TITLE_LENGTH_POWER),
                &format!("{title} {}", hit.id),
            ),
            field(stemmer, KEYWORD_WEIGHT, &keywords.join(" ")),
            field(stemmer, TEXT_WEIGHT, &hit.text),
        ];
        // A keyword of several words is a phrase; one that is a single word
        // once question words are dropped ("who can I shoot") is a question,
        // or it would win every one-word question ("shooting") for its entry.
        let (phrases, questions) = keywords
            .iter()
            .filter(|k| k.trim().contains(' '))
            .partition::<Vec<&String>, _>(|k| phrase(stemmer, k).contains(' '));
        let phrases = phrases.iter().map(|k| phrase(stemmer, k)).collect();
        let questions = questions
            .iter()
            .map(|k| (phrase(stemmer, k), question_words(k)))
            .collect();
        if let Some(r) = &hit.ruling {
            fields.push(field(stemmer, RULING_WEIGHT, r));
        }
        out.push(Doc {
            title: phrase(stemmer, title),
            phrases,
            questions,
            fields,
            hit,
        });
    };
    for r in &rs.rules {
        let hit = Hit {
            kind: HitKind::Rule,
            id: r.id.clone(),
            title: r.title.clone(),
            text: r.text.clone(),
            ruling: r.ruling.clone(),
        };
        add(hit, &r.title, &r.keywords);
    }
    for u in &rs.upgrades {
        let hit = Hit {
            kind: HitKind::Upgrade,
            id: u.id.clone(),
            title: format!("Upgrade: {}", u.name),
            text: u.text.clone(),
            ruling: None,
        };
        add(hit, &u.name, &[]);
    }
    for a in &rs.abilities {
        let hit = Hit {
            kind: HitKind::Ability,
            id: a.id.clone(),
            title: format!("Ability: {}", a.name),
            text: ability_text(a, rs.numbers.get("skill_check_action_cost").copied()),
            ruling: None,
        };
        add(hit, &a.name, &[]);
    }
    for p in &rs.profiles {
        let stats: Vec<String> = in_stat_order(&p.stats)
            .map(|(k, v)| stat_words(k, v))
            .collect();
        let mut text = format!("Stats: {}.", stats.join(", "));
        if p.soldiers > 1 {
            text.push_str(&format!(" {} soldiers.", p.soldiers));
        }
        if !p.note.is_empty() {
            text.push(' ');
            text.push_str(&p.note);
        }
        let hit = Hit {
            kind: HitKind::Profile,
            id: p.id.clone(),
            title: format!("Profile: {}", p.name),
            text,
            ruling: None,
        };
        add(hit, &p.name, &["stats".to_string()]);
    }
    out
}

/// How players write a profile: T52's M A I V W R first, in the book's
/// order, then any other stat by name.
const STAT_ORDER: [&str; 6] = ["M", "A", "I", "V", "W", "R"];

/// A profile's stats in [`STAT_ORDER`], then the rest alphabetically.
fn in_stat_order(
    stats: &std::collections::BTreeMap<String, i32>,
) -> impl Iterator<Item = (&str, i32)> {
    let first = STAT_ORDER
        .iter()
        .filter_map(|k| stats.get_key_value(*k))
        .map(|(k, v)| (k.as_str(), *v));
    let rest = stats
        .iter()
        .filter(|(k, _)| !STAT_ORDER.contains(&k.as_str()))
        .map(|(k, v)| (k.as_str(), *v));
    first.chain(rest)
}

/// An ability as a player needs it at the table: what it costs to try
/// (`check_cost` action points and the suit drawn, or the points of a
/// checkless one), its reach, each effect with the cards that buy it, and
/// how many effects one draw may buy.
fn ability_text(a: &super::ability::Ability, check_cost: Option<i64>) -> String {
    use super::ability::{AbilityCheck, Reach};
    let plural = |n: u32, one: &str, many: &str| {
        if n == 1 {
            format!("1 {one}")
        } else {
            format!("{n} {many}")
        }
    };
    let mut parts = Vec::new();
    parts.push(match (a.check, check_cost) {
        (AbilityCheck::Skill(suit), Some(ap)) => format!(
            "Costs {}, then draws as many cards as the unit's {suit:?} ({}) skill",
            plural(ap.max(0) as u32, "action point", "action points"),
            suit.symbol()
        ),
        (AbilityCheck::Skill(suit), None) => format!(
            "Draws as many cards as the unit's {suit:?} ({}) skill",
            suit.symbol()
        ),
        (AbilityCheck::Checkless(points), _) => format!(
            "No draw: done once {} are spent on it",
            plural(points, "action point", "action points")
        ),
    });
    match a.reach {
        Some(Reach::Ranged(h)) => parts.push(format!(
            "ranged: any target, one card fewer per hex beyond {}",
            plural(h, "hex", "hexes")
        )),
        Some(Reach::Melee(h)) => parts.push(format!("melee, within {}", plural(h, "hex", "hexes"))),
        Some(Reach::Support(h)) => {
            parts.push(format!("a friend within {}", plural(h, "hex", "hexes")))
        }
        None => {}
    }
    let buys: Vec<String> = a
        .options
        .iter()
        .map(|o| {
            let cost = super::ability::cost_text(&o.cost);
            if cost.is_empty() {
                o.label.clone()
            } else {
                format!("{} ({cost})", o.label)
            }
        })
        .collect();
    let mut text = format!("{}. Buys: {}.", parts.join("; "), buys.join("; "));
    let mut how = Vec::new();
    if a.dash {
        how.push("each card paid buys one hex; a charge is declared before drawing");
    } else if a.multichoice && a.repeatable {
        how.push("one draw may buy several effects, the same one more than once");
    } else if a.multichoice {
        how.push("one draw may buy several different effects");
    } else if a.repeatable {
        how.push("one draw may buy the same effect more than once");
    } else if a.options.len() > 1 {
        how.push("one draw buys one effect");
    }
    if a.multitarget {
        how.push("each effect after the first may hit another target");
    }
    if a.reusable {
        how.push("usable again in the activation, drawing fewer");
    }
    if a.heavy {
        how.push("heavy: not in the same activation as a move, unless the unit is Strong");
    }
    if !how.is_empty() {
        let how = how.join("; ");
        let mut first = how.chars();
        if let Some(c) = first.next() {
            text.push_str(&format!(" {}{}.", c.to_uppercase(), first.as_str()));
        }
    }
    if a.ammo.is_some() {
        text.push_str(" Spends one round of ammunition.");
    }
    text
}

/// Allowed letters wrong for a word of this length.
fn typo_budget(word: &str) -> usize {
    let n = word.chars().count();
    if n > TYPO_MAX {
        0
    } else if n >= TWO_TYPOS_MIN {
        2
    } else if n >= TYPO_MIN {
        1
    } else {
        0
    }
}

/// One question word, as the stems it may stand for, and whether it may
/// also match as the start of a word (the last word, still being typed).
struct Term {
    stems: Vec<String>,
    prefix: Option<String>,
}

/// Looks a whole question up in `rs`. An empty query lists the rules entries
/// in file order; a query of only question words ("how", "the") finds
/// nothing.
pub fn lookup(rs: &Ruleset, query: &str) -> Vec<Hit> {
    search(rs, query, false)
}

/// What to say when `query` finds nothing in `rs`: a question of only
/// question words ("how") asks for what it is about; anything else is
/// worth another word, two of this game's own one-word entries given as
/// examples, and `list_all` says how to see every entry (audits BL L6, BO
/// O2).
pub fn nothing_found(rs: &Ruleset, query: &str, list_all: &str) -> String {
    let query = query.trim();
    let asked = words(query);
    if !asked.is_empty() && asked.iter().all(|w| STOP_WORDS.contains(&w.as_str())) {
        return format!(
            "\"{query}\" is only question words: add what it is about, such as \"how do I {}\".",
            examples(rs).first().map_or("win", String::as_str)
        );
    }
    let examples: Vec<String> = examples(rs).iter().map(|e| format!("\"{e}\"")).collect();
    let try_words = if asked.len() > 1 {
        "one word of it"
    } else {
        "another word"
    };
    format!(
        "No {} rule mentions \"{query}\". Try {try_words} ({}), or {list_all}.",
        rs.title,
        examples.join(", ")
    )
}

/// Two of `rs`'s rules entries titled in one word, lower case ("cover",
/// "melee"), as examples of words to look up.
fn examples(rs: &Ruleset) -> Vec<String> {
    (rs.rules.iter())
        .filter(|r| !r.title.trim().contains(' '))
        .map(|r| r.title.trim().to_lowercase())
        .filter(|t| t.chars().all(char::is_alphabetic))
        .take(2)
        .collect()
}

/// [`lookup`] of a question still being typed: its last word also matches
/// the start of longer words ("overw" finds Overwatch) until a space
/// follows it.
pub fn lookup_as_typed(rs: &Ruleset, query: &str) -> Vec<Hit> {
    search(rs, query, !query.ends_with(char::is_whitespace))
}

/// A ruleset's searchable items and how many of them hold each stem.
struct Index {
    docs: Vec<Doc>,
    /// Document frequency of every stem: rare words weigh more.
    df: HashMap<String, usize>,
}

impl Index {
    fn build(rs: &Ruleset, stemmer: &Stemmer) -> Index {
        let docs = docs(rs, stemmer);
        let mut df: HashMap<String, usize> = HashMap::new();
        for d in &docs {
            let stems: HashSet<&String> = d.fields.iter().flat_map(|(_, s, _)| s.iter()).collect();
            for s in stems {
                *df.entry(s.clone()).or_default() += 1;
            }
        }
        Index { docs, df }
    }
}

thread_local! {
    /// The ruleset searched last and its index: the window searches every
    /// frame while the lookup is open, and stemming every entry each time
    /// cost most of a millisecond; comparing the ruleset costs far less.
    static LAST_INDEX: std::cell::RefCell<Option<(Ruleset, std::rc::Rc<Index>)>> =
        const { std::cell::RefCell::new(None) };
}

/// The index of `rs`, built again only when another ruleset is searched.
fn index_of(rs: &Ruleset, stemmer: &Stemmer) -> std::rc::Rc<Index> {
    LAST_INDEX.with(|last| {
        let mut last = last.borrow_mut();
        match &*last {
            Some((seen, index)) if seen == rs => std::rc::Rc::clone(index),
            _ => {
                let index = std::rc::Rc::new(Index::build(rs, stemmer));
                *last = Some((rs.clone(), std::rc::Rc::clone(&index)));
                index
            }
        }
    })
}

fn search(rs: &Ruleset, query: &str, still_typing: bool) -> Vec<Hit> {
    let stemmer = Stemmer::create(Algorithm::English);
    let index = index_of(rs, &stemmer);
    let (docs, df) = (&index.docs, &index.df);
    // Nothing asked: the whole book, rules first, then the profiles,
    // upgrades and abilities a player browses for.
    if query.trim().is_empty() {
        let mut all: Vec<Hit> = docs.iter().map(|d| d.hit.clone()).collect();
        all.sort_by_key(|h| match h.kind {
            HitKind::Rule => 0,
            HitKind::Profile => 1,
            HitKind::Upgrade => 2,
            HitKind::Ability => 3,
        });
        return all;
    }
    let typed = words(query);
    let mut content: Vec<String> = Vec::new();
    for w in typed.iter().take(MAX_QUESTION_WORDS) {
        if !STOP_WORDS.contains(&w.as_str()) && !content.contains(w) {
            content.push(w.clone());
        }
    }
    // "can" on the way to "canister": a question word still being typed
    // only matches the start of longer words.
    let typing_stop_word = typed
        .last()
        .filter(|w| still_typing && STOP_WORDS.contains(&w.as_str()))
        .filter(|w| w.chars().count() >= PREFIX_MIN && typed.len() <= MAX_QUESTION_WORDS);
    if content.is_empty() && typing_stop_word.is_none() {
        return Vec::new();
    }
    let last_is_content = typing_stop_word.is_none();
    let mut terms: Vec<Term> = content
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let stem = stemmer.stem(w).into_owned();
            let prefix = (still_typing
                && last_is_content
                && i + 1 == content.len()
                && w.chars().count() >= PREFIX_MIN)
                .then(|| w.clone());
            let stems = if df.contains_key(stem.as_str()) {
                vec![stem]
            } else {
                near_stems(w, &stem, docs, &stemmer)
            };
            Term { stems, prefix }
        })
        .collect();
    if let Some(w) = typing_stop_word {
        terms.push(Term {
            stems: Vec::new(),
            prefix: Some(w.clone()),
        });
    }
    let n = docs.len() as f64;
    let idf = |stem: &str| (1.0 + n / (*df.get(stem).unwrap_or(&1) as f64)).ln();
    let question = phrase(&stemmer, query);
    let asked_with = question_words(query);
    let mut scored: Vec<(usize, f64, usize, Hit)> = docs
        .iter()
        .enumerate()
        .filter_map(|(order, d)| {
            let mut matched = 0;
            let mut score = 0.0;
            for t in &terms {
                if let Some(b) = term_score(d, t, &idf, PREFIX_FACTOR * (1.0 + n).ln()) {
                    matched += 1;
                    score += b;
                }
            }
            if matched == 0 {
                return None;
            }
            let bonus = if d.title == question
                || d.phrases.contains(&question)
                || d.questions
                    .iter()
                    .any(|(p, with)| *p == question && !with.is_disjoint(&asked_with))
            {
                1.0
            } else if d.title.starts_with(&format!("{question} ")) {
                // "dangerous terrain" -> Dangerous Terrain Test.
                0.5
            } else {
                0.0
            };
            score += bonus * PHRASE_MATCH_BONUS * (1.0 + n).ln();
            Some((matched, score * d.hit.kind.weight(), order, d.hit.clone()))
        })
        .collect();
    scored.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then_with(|| b.1.total_cmp(&a.1))
            .then_with(|| a.2.cmp(&b.2))
    });
    scored.into_iter().map(|(_, _, _, h)| h).collect()
}

/// How well `doc` matches one question word: the best over its fields of the
/// field's weight times the word's rarity (`prefix_score` for a last word
/// that only starts a word); `None` when no field has it.
fn term_score(doc: &Doc, t: &Term, idf: &impl Fn(&str) -> f64, prefix_score: f64) -> Option<f64> {
    let max = |m: Option<f64>, v: f64| Some(m.map_or(v, |m: f64| m.max(v)));
    doc.fields
        .iter()
        .filter_map(|(weight, stems, raw)| {
            let by_stem = t
                .stems
                .iter()
                .filter(|s| stems.contains(*s))
                .map(|s| idf(s))
                .fold(None, max);
            // Only a longer word: "what" still being typed is on its way to
            // "whatever", and is no match for "what" itself (audit BL L1).
            let by_prefix = t.prefix.as_ref().and_then(|p| {
                raw.iter()
                    .any(|w| w.len() > p.len() && w.starts_with(p.as_str()))
                    .then_some(prefix_score)
            });
            by_stem.or(by_prefix).map(|v| v * weight)
        })
        .fold(None, max)
}

/// Stems of the words of `docs` nearest to the typed `word`, within its typo
/// budget, comparing both stems ("panicking" stems to "panick", one letter
/// from "panic") and words as typed ("initative" against "initiative", whose
/// stems differ more).
fn near_stems(word: &str, stem: &str, docs: &[Doc], stemmer: &Stemmer) -> Vec<String> {
    let budget = typo_budget(word);
    if budget == 0 {
        return Vec::new();
    }
    // A stem is shorter than its word, and allows fewer typos: "initi"
    // (of "initiative") two letters from "unit" is no typo (audit BL L4).
    let stem_budget = typo_budget(stem).min(budget);
    let mut best: Vec<(usize, String)> = Vec::new();
    for (_, stems, raw) in docs.iter().flat_map(|d| d.fields.iter()) {
        // Words whose lengths differ by more than the budget are too far.
        let near = |a: &str, b: &str| a.chars().count().abs_diff(b.chars().count()) <= budget;
        let by_stem = stems
            .iter()
            .filter(|v| near(stem, v))
            .map(|v| (strsim::damerau_levenshtein(stem, v), v.clone()))
            .filter(|(d, _)| *d <= stem_budget);
        let by_word = raw.iter().filter(|v| near(word, v)).map(|v| {
            (
                strsim::damerau_levenshtein(word, v),
                stemmer.stem(v).into_owned(),
            )
        });
        best.extend(
            by_stem
                .chain(by_word)
                .filter(|(d, v)| *d <= budget && v.chars().count() >= TYPO_MIN - 1),
        );
    }
    let nearest = best.iter().map(|(d, _)| *d).min().unwrap_or(0);
    let mut stems: Vec<String> = best
        .into_iter()
        .filter(|(d, _)| *d == nearest)
        .map(|(_, v)| v)
        .collect();
    stems.sort_unstable();
    stems.dedup();
    stems
}

/// A profile stat as players read it: `combat_range_cm` 20 is "combat
/// range 20 cm", `win_confused_bonus` 1 is "win confused bonus 1"; short
/// keys ("M 3") stay as they are.
pub fn stat_words(key: &str, value: i32) -> String {
    match key.strip_suffix("_cm") {
        // A range of 0 is no range of its own (T52's gun, "R -" in the
        // rulebook), not "cannot shoot".
        None if key == "R" && value == 0 => "R -".to_string(),
        Some(k) => format!("{} {value} cm", k.replace('_', " ")),
        None => format!("{} {value}", key.replace('_', " ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::games::{GameId, Library};

    fn ruleset(game: GameId) -> Ruleset {
        let (lib, errors) = Library::builtin();
        assert!(errors.is_empty(), "{errors:?}");
        lib.get(game)
            .cloned()
            .unwrap_or_else(|| panic!("no {game:?}"))
    }

    fn first(game: GameId, query: &str) -> String {
        lookup(&ruleset(game), query)
            .first()
            .map(|h| h.id.clone())
            .unwrap_or_default()
    }

    #[test]
    fn words_drop_apostrophes_and_join_hyphens() {
        assert_eq!(
            words("Can't re-roll, Panic?"),
            ["cant", "reroll", "re", "roll", "panic"]
        );
    }

    #[test]
    fn questions_find_their_entry_whatever_the_word_forms() {
        // Question words are ignored, word endings too.
        assert_eq!(first(GameId::T52, "who goes first"), "initiative");
        assert_eq!(first(GameId::T52, "panicking?"), "panic");
        assert_eq!(first(GameId::T52, "how does charging work"), "charge");
        assert_eq!(first(GameId::Gunfight, "shooting"), "shooting");
        // Upgrades are found too.
        let hits = lookup(&ruleset(GameId::T52), "skirmisher");
        assert!(hits.iter().any(|h| h.kind == HitKind::Upgrade), "{hits:?}");
    }

    /// Questions a player asked at the table (an audit of the lookup), with
    /// the entry that answers them and the place it must reach (1: first).
    /// The first ten ranked lower before their keywords were added; the
    /// rest guard the entries those keywords could push down.
    #[test]
    fn table_questions_find_the_entry_that_answers_them() {
        let cases = [
            (GameId::T52, "how far can cavalry charge", "charge", 3),
            (GameId::T52, "can i move thru my own units", "spacing", 1),
            (
                GameId::GentlemenOfWar,
                "do i draw less cards if the target is really far away",
                "ranged",
                1,
            ),
            (
                GameId::GentlemenOfWar,
                "can i split a reload across two activations",
                "checkless-action",
                1,
            ),
            (GameId::Napoleonic, "how do you win the game", "victory", 1),
            (
                GameId::Napoleonic,
                "how close can i get to the enemy",
                "movement",
                1,
            ),
            (
                GameId::CardActivation,
                "what counts as a charge",
                "charge",
                1,
            ),
            (
                GameId::Gunfight,
                "can i move using a heart card",
                "movement",
                3,
            ),
            (
                GameId::Gunfight,
                "what do civilians do when the shooting starts",
                "civilian-reaction",
                1,
            ),
            (GameId::GentlemenOfWar, "what does scatter do", "scatter", 1),
            (GameId::T52, "how far can cavalry move", "cavalry", 1),
            (
                GameId::Napoleonic,
                "who moves first in the game",
                "first-move",
                1,
            ),
            (
                GameId::Napoleonic,
                "how does the game start",
                "first-move",
                1,
            ),
            (GameId::Gunfight, "what can a heart card do", "suits", 1),
            // A second audit's questions.
            (GameId::Napoleonic, "how do i win", "victory", 1),
            (GameId::Napoleonic, "do jokers count", "combat", 1),
            (GameId::Napoleonic, "who wins a tie", "tie", 1),
            (GameId::Napoleonic, "what happens on a double", "tie", 1),
            (GameId::T52, "how far can infantry move", "march", 1),
            (GameId::T52, "how far do i retreat", "retreat", 1),
            // A third audit's: "far" alone named only Range.
            (GameId::T52, "how far do I move", "movement", 1),
            (GameId::T52, "how far can I charge", "charge", 1),
            (GameId::T52, "how far can I shoot", "range", 1),
            (GameId::CardActivation, "how far do I retreat", "rout", 1),
            // One-word questions are not taken by a keyword that is a
            // question about that word ("who can I shoot").
            (GameId::T52, "shooting", "shooting", 1),
            (
                GameId::T52,
                "can the toff shoot more than once",
                "commanders",
                1,
            ),
            (
                GameId::T52,
                "what happens if my toff dies",
                "sudden-death",
                1,
            ),
            (GameId::T52, "what does inaccuracy mean", "stats", 1),
            // Asked in a play audit (round s39).
            (
                GameId::T52,
                "can I shoot through my own units",
                "line-of-sight",
                1,
            ),
            (GameId::T52, "can my snob shoot", "commanders", 1),
            (
                GameId::T52,
                "what if both players hold the same number of objectives",
                "victory",
                1,
            ),
            (
                GameId::T52,
                "can a unit shoot twice in a round",
                "equipment",
                1,
            ),
            (
                GameId::CardActivation,
                "can I save actions for later",
                "overwatch",
                1,
            ),
            (
                GameId::CardActivation,
                "when can I shoot again after firing",
                "weapon-prep",
                1,
            ),
            (
                GameId::GentlemenOfWar,
                "how far can I move",
                "movement-charge",
                1,
            ),
            (GameId::T52, "who can order units", "rounds", 2),
            (
                GameId::Gunfight,
                "can i use my initiative card again",
                "initiative",
                1,
            ),
            (
                GameId::Gunfight,
                "do civvies shoot back",
                "civilian-reaction",
                1,
            ),
            // Audit BL (rules lookup across the five games).
            (GameId::T52, "what is the range of a follower", "range", 1),
            (GameId::T52, "how many decks do we need", "materials", 1),
            (GameId::T52, "rout", "retreat", 1),
            (GameId::T52, "when do I take a panic test", "panic", 1),
            (
                GameId::GentlemenOfWar,
                "how do I charge",
                "movement-charge",
                1,
            ),
            (
                GameId::GentlemenOfWar,
                "initiative",
                "deployment-objectives",
                2,
            ),
            (GameId::Napoleonic, "what beats what", "combat", 1),
            (
                GameId::Napoleonic,
                "what happens if I attack from behind",
                "cavalry-flank",
                1,
            ),
            (GameId::CardActivation, "to hit modifiers", "ballistics", 1),
            (
                GameId::CardActivation,
                "how many activation cards",
                "deal",
                1,
            ),
            (GameId::CardActivation, "initiative", "activation-order", 1),
            (
                GameId::CardActivation,
                "my unit routed, now what",
                "rally",
                1,
            ),
            (GameId::Gunfight, "dodge", "shooting", 2),
            (
                GameId::Gunfight,
                "what happens when I draw a joker",
                "joker-interrupt",
                1,
            ),
            (GameId::Gunfight, "fanning", "fan-shot", 1),
            // Audit BO (new questions after BL's).
            (GameId::T52, "who must I shoot at", "targeting", 1),
            (
                GameId::T52,
                "how close can I get to the enemy",
                "spacing",
                1,
            ),
            (
                GameId::GentlemenOfWar,
                "how many weapons can I carry",
                "equipment",
                1,
            ),
            (
                GameId::Napoleonic,
                "what if all my men are confused",
                "mob",
                1,
            ),
            (
                GameId::CardActivation,
                "does a rout cost actions",
                "rout",
                1,
            ),
            (
                GameId::CardActivation,
                "can my routed unit still shoot?",
                "rally",
                1,
            ),
            (
                GameId::Gunfight,
                "can my gunmen move together",
                "movement",
                1,
            ),
            (GameId::Gunfight, "how many packs of cards", "setup", 1),
            // Audits CB4, CA N2, CE F5 and CF M3.
            (GameId::T52, "powder smoke", "equipment", 1),
            (
                GameId::CardActivation,
                "can I shoot into a melee",
                "ballistics",
                1,
            ),
            (
                GameId::CardActivation,
                "when do I take a morale check",
                "morale-check",
                1,
            ),
            (
                GameId::CardActivation,
                "does going on overwatch cost an action",
                "overwatch",
                1,
            ),
            (
                GameId::Gunfight,
                "bottle test when half my gang is down",
                "victory",
                1,
            ),
            (
                GameId::Napoleonic,
                "can my guns fire into a melee",
                "artillery-fire",
                1,
            ),
            (
                GameId::CardActivation,
                "can a unit on overwatch shoot an enemy that moves",
                "overwatch",
                1,
            ),
        ];
        for (game, question, entry, place) in cases {
            let hits = lookup(&ruleset(game), question);
            let ids: Vec<&str> = hits.iter().take(place).map(|h| h.id.as_str()).collect();
            assert!(ids.contains(&entry), "{question}: {ids:?}");
        }
    }

    #[test]
    fn a_word_is_matched_whole_not_inside_other_words() {
        // "los" is line of sight, not "loser" or "closest".
        let hits = lookup(&ruleset(GameId::T52), "los");
        let ids: Vec<&str> = hits.iter().map(|h| h.id.as_str()).collect();
        assert_eq!(ids, ["line-of-sight"]);
    }

    #[test]
    fn a_typo_finds_the_nearest_word_and_the_last_word_may_be_half_typed() {
        assert_eq!(first(GameId::T52, "panik"), "panic");
        assert_eq!(first(GameId::Gunfight, "overwach"), "overwatch");
        let typing = lookup_as_typed(&ruleset(GameId::Gunfight), "overw");
        assert_eq!(typing.first().map(|h| h.id.as_str()), Some("overwatch"));
        assert!(lookup(&ruleset(GameId::Gunfight), "overw ").is_empty());
    }

    #[test]
    fn a_question_word_being_typed_may_start_a_rule_word() {
        // "can" on the way to "canister".
        let typing = lookup_as_typed(&ruleset(GameId::T52), "can");
        assert!(
            typing.iter().any(|h| h.text.contains("Canister")),
            "{typing:?}"
        );
        assert!(lookup(&ruleset(GameId::T52), "can").is_empty());
    }

    /// Audit BL L1: a question word being typed matches only longer words,
    /// so "now what" does not pick the entry whose keyword says "what is".
    #[test]
    fn a_last_question_word_does_not_match_itself() {
        let rs = ruleset(GameId::CardActivation);
        let typing = lookup_as_typed(&rs, "my unit routed, now what");
        assert_eq!(typing.first().map(|h| h.id.as_str()), Some("rally"));
        let rs = ruleset(GameId::GentlemenOfWar);
        let typing = lookup_as_typed(&rs, "initiative");
        assert_ne!(typing.first().map(|h| h.id.as_str()), Some("deck"));
    }

    #[test]
    fn nothing_found_says_what_to_try() {
        let rs = ruleset(GameId::T52);
        let said = nothing_found(&rs, "zzqx ", "clear the box");
        assert!(
            said.starts_with("No T52 rule mentions \"zzqx\". Try another word (\""),
            "{said}"
        );
        assert!(said.ends_with("or clear the box."), "{said}");
        let said = nothing_found(&rs, "zzqx qqz", "clear the box");
        assert!(said.contains("Try one word of it"), "{said}");
        let said = nothing_found(&rs, "how", "clear the box");
        assert!(said.contains("only question words"), "{said}");
        // The examples are the game's own: no "charge" for Gunfight (audit
        // BO O2), and each finds an entry.
        for game in [GameId::Gunfight, GameId::Napoleonic, GameId::GentlemenOfWar] {
            let rs = ruleset(game);
            let words = examples(&rs);
            assert_eq!(words.len(), 2, "{game:?}");
            for w in words {
                assert!(!lookup(&rs, &w).is_empty(), "{game:?}: {w}");
            }
        }
    }

    #[test]
    fn pasted_paragraphs_and_absurd_words_end_quickly_without_panic() {
        let rs = ruleset(GameId::GentlemenOfWar);
        let long_word = "x".repeat(5000);
        assert!(lookup(&rs, &long_word).is_empty());
        let paragraph = "zqxv ".repeat(300) + "panic";
        // Only the first words of a paragraph are looked at.
        assert!(lookup_as_typed(&rs, &paragraph).is_empty());
        for odd in ["!!!", "日本語", "straße", "İstanbul", "-2", "  "] {
            let _ = lookup_as_typed(&rs, odd);
        }
    }

    #[test]
    fn empty_and_stop_word_queries() {
        let rs = ruleset(GameId::T52);
        // Nothing asked: the whole book, the rules first in file order,
        // then the profiles, upgrades and abilities.
        let all = lookup(&rs, "");
        let entries = rs.rules.len() + rs.profiles.len() + rs.upgrades.len() + rs.abilities.len();
        assert_eq!(all.len(), entries);
        assert_eq!(all[0].id, rs.rules[0].id, "file order");
        assert_eq!(all[rs.rules.len()].kind, HitKind::Profile);
        assert_eq!(all.last().map(|h| h.kind), Some(HitKind::Upgrade));
        assert!(lookup(&rs, "how do I").is_empty());
    }

    /// An ability's entry says what trying it costs, its reach, what each
    /// effect costs and how many one draw buys (audit L: Sabre read as
    /// "pick one").
    #[test]
    fn ability_entries_say_cost_reach_and_how_much_one_draw_buys() {
        let rs = ruleset(GameId::GentlemenOfWar);
        let text = |q: &str| {
            lookup(&rs, q)
                .first()
                .map(|h| h.text.clone())
                .unwrap_or_default()
        };
        let musket = text("musket fire");
        for part in [
            "Costs 1 action point, then draws as many cards as the unit's Diamonds (♦) skill",
            "one card fewer per hex beyond 6 hexes",
            "2 wounds (♦7 ♦)",
            "One draw buys one effect",
            "Spends one round of ammunition",
        ] {
            assert!(musket.contains(part), "{part}: {musket}");
        }
        assert!(text("sabre").contains("One draw may buy several different effects"));
        assert!(text("musket load").starts_with("No draw: done once 3 action points"));
    }

    #[test]
    fn profile_stats_read_as_words() {
        assert_eq!(stat_words("combat_range_cm", 20), "combat range 20 cm");
        assert_eq!(stat_words("win_confused_bonus", 1), "win confused bonus 1");
        assert_eq!(stat_words("M", 3), "M 3");
        assert_eq!(stat_words("R", 0), "R -");
        assert_eq!(stat_words("R", 9), "R 9");
    }
}
