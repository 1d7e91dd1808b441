//! Submissions that look alike: the same graded files byte for byte
//! (`student_files_sha256`), or the same code once comments and white space are left out
//! (`code_sha256`, see `grade::code_digest`). Unchanged skeletons are alike by nature and
//! are left out: the page lists them on their own.

use crate::grade::gradebook::Row;

/// How alike a group is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Likeness {
    /// The same files, byte for byte.
    Identical,
    /// The same code; only comments or white space differ.
    SameCode,
}

/// Two submissions or more that look alike.
#[derive(Clone, Debug)]
pub struct Alike<'a> {
    /// How.
    pub likeness: Likeness,
    /// Their names, in gradebook order.
    pub members: Vec<&'a str>,
}

/// What the page says these groups cannot see.
pub const BLIND_SPOTS: &str = "Only two ways of looking alike are seen: the same files byte for byte, and the same code once comments and white space are left out. Renamed variables, reordered functions, code moved from one file to another or rewritten in another form all look different here, and so does a submission graded in another batch whose row this gradebook no longer keeps. A group is a reason to read those submissions side by side, never proof of copying: a short exercise has few ways to be right.";

/// The groups among `rows`: identical ones first, then those with the same code whose
/// files differ (a group of identical files is not told again as the same code).
pub fn groups<'a>(rows: &[&'a Row]) -> Vec<Alike<'a>> {
    let candidates: Vec<&Row> = rows
        .iter()
        .copied()
        .filter(|r| !r.unchanged_skeleton)
        .collect();
    let mut out = by(
        &candidates,
        |r| r.student_files_sha256.as_deref(),
        Likeness::Identical,
    );
    let same_code = by(
        &candidates,
        |r| r.code_sha256.as_deref(),
        Likeness::SameCode,
    );
    for group in same_code {
        // A group whose members are all one identical group already says nothing new.
        let told = out
            .iter()
            .any(|g| group.members.iter().all(|m| g.members.contains(m)));
        if !told {
            out.push(group);
        }
    }
    out
}

/// Rows with equal keys, two or more to a group, in the order of their first member.
fn by<'a>(
    rows: &[&'a Row],
    key: impl Fn(&Row) -> Option<&str>,
    likeness: Likeness,
) -> Vec<Alike<'a>> {
    let mut groups: Vec<(&str, Vec<&'a str>)> = Vec::new();
    for r in rows {
        let Some(k) = key(r) else {
            continue;
        };
        match groups.iter_mut().find(|g| g.0 == k) {
            Some(g) => g.1.push(&r.name),
            None => groups.push((k, vec![&r.name])),
        }
    }
    groups
        .into_iter()
        .filter(|g| g.1.len() > 1)
        .map(|(_, members)| Alike { likeness, members })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, files: &str, code: &str) -> Row {
        let mut row = Row::new(name, "graded", 1);
        row.student_files_sha256 = Some(files.into());
        row.code_sha256 = Some(code.into());
        row
    }

    #[test]
    fn copies_and_copies_with_other_comments_are_grouped_apart() {
        let rows = [
            row("a", "f1", "c1"),
            row("b", "f1", "c1"),
            row("c", "f2", "c1"),
            row("d", "f3", "c3"),
        ];
        let refs: Vec<&Row> = rows.iter().collect();
        let found: Vec<(Likeness, Vec<&str>)> = groups(&refs)
            .into_iter()
            .map(|g| (g.likeness, g.members))
            .collect();
        assert_eq!(
            found,
            [
                (Likeness::Identical, vec!["a", "b"]),
                (Likeness::SameCode, vec!["a", "b", "c"]),
            ]
        );
    }

    #[test]
    fn identical_files_are_not_told_twice_and_skeletons_are_left_out() {
        let mut skeleton = row("s", "f1", "c1");
        skeleton.unchanged_skeleton = true;
        let rows = [row("a", "f1", "c1"), row("b", "f1", "c1"), skeleton];
        let refs: Vec<&Row> = rows.iter().collect();
        let found = groups(&refs);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].members, ["a", "b"]);
    }
}
