//! Words every lab's reports share.

/// Fake-clock milliseconds as `HH:MM:SS.mmm`.
pub fn clock(ms: u64) -> String {
    let (h, rest) = (ms / 3_600_000, ms % 3_600_000);
    let (m, rest) = (rest / 60_000, rest % 60_000);
    format!("{h:02}:{m:02}:{:02}.{:03}", rest / 1000, rest % 1000)
}

/// Milliseconds in words: `30 s`, `1500 ms`.
pub fn duration(ms: u64) -> String {
    if ms % 1000 == 0 {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    }
}

/// When `word` is not one of `allowed`: the problem (`unknown {what} `word``) and what to
/// do (the closest word, or the list). `what` names the kind of word: "target", "state".
pub fn unknown_word(word: &str, allowed: &[&str], what: &str) -> Option<(String, String)> {
    if allowed.contains(&word) {
        return None;
    }
    let help = match did_you_mean(word, allowed.iter().copied()) {
        Some(close) => format!("did you mean `{close}`?"),
        None => format!("use one of: {}", allowed.join(", ")),
    };
    Some((format!("unknown {what} `{word}`"), help))
}

/// `n` and a noun, plural unless `n` is 1: `1 scenario`, `3 scenarios`.
pub fn quantity(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// How often, in words: `once`, `3 times`, `0 times`.
pub fn times(n: impl Into<u64>) -> String {
    match n.into() {
        1 => "once".to_owned(),
        n => format!("{n} times"),
    }
}

/// Outcomes counted per word, in word order: `2x E905, 3x held`; `nothing` when empty.
pub fn counts(map: &std::collections::BTreeMap<String, u32>) -> String {
    if map.is_empty() {
        return "nothing".to_owned();
    }
    map.iter()
        .map(|(k, v)| format!("{v}x {k}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The closest of `candidates` to `word`: the same word in other capitals (`Open` for
/// `OPEN`), or else one close enough to be a likely typo.
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let candidates: Vec<&str> = candidates.into_iter().collect();
    if let Some(same) = candidates.iter().find(|c| c.eq_ignore_ascii_case(word)) {
        return Some(same);
    }
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(word, c), c))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_catch_typos_only() {
        let names = ["core_banking", "claims"];
        assert_eq!(did_you_mean("core_bankng", names), Some("core_banking"));
        assert_eq!(did_you_mean("ledger", names), None);
        assert_eq!(
            did_you_mean("Open", ["CLOSED", "OPEN", "HALF_OPEN"]),
            Some("OPEN")
        );
        assert_eq!(
            did_you_mean("hints", ["title", "hint", "steps"]),
            Some("hint")
        );
    }

    #[test]
    fn times_and_durations() {
        assert_eq!(clock(3_723_004), "01:02:03.004");
        assert_eq!(duration(30_000), "30 s");
        assert_eq!(duration(1500), "1500 ms");
        assert_eq!(quantity(1u32, "outcome"), "1 outcome");
        assert_eq!(quantity(0u32, "scenario"), "0 scenarios");
        assert_eq!(times(1u32), "once");
        assert_eq!(times(3u32), "3 times");
    }
}
