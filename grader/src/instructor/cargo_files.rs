//! The kit's `Cargo.toml` and `Cargo.lock` without the packages the student edition
//! leaves out (the reference solutions).

use crate::error::Error;

/// The `members` of the `[workspace]` table, in order.
pub fn workspace_members(manifest: &str) -> Vec<String> {
    let Some((start, end)) = members_span(manifest) else {
        return Vec::new();
    };
    quoted(&manifest[start..end])
}

/// The byte range of the `members = [ ... ]` array, brackets included.
fn members_span(manifest: &str) -> Option<(usize, usize)> {
    let key = manifest
        .lines()
        .scan(0, |offset, line| {
            let at = *offset;
            *offset += line.len() + 1;
            Some((at, line))
        })
        .find(|(_, line)| {
            let t = line.trim_start();
            t.starts_with("members") && t["members".len()..].trim_start().starts_with('=')
        })
        .map(|(at, _)| at)?;
    let open = key + manifest[key..].find('[')?;
    let close = open + manifest[open..].find(']')?;
    Some((open, close + 1))
}

/// Every double-quoted string in `text`.
fn quoted(text: &str) -> Vec<String> {
    text.split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// The root manifest with `dropped` removed from the workspace members; fails if the
/// manifest mentions a dropped member anywhere else.
pub fn rewrite_manifest(manifest: &str, dropped: &[String]) -> Result<String, Error> {
    let Some((start, end)) = members_span(manifest) else {
        return Ok(manifest.to_owned());
    };
    let array = &manifest[start..end];
    let is_dropped = |q: &String| dropped.contains(q);
    // Keep the layout when each dropped member has a line of its own; otherwise write
    // the array again on one line.
    let own_lines = array.contains('\n')
        && array.lines().all(|line| {
            let q = quoted(line);
            q.iter().all(is_dropped) || !q.iter().any(is_dropped)
        });
    let new_array = if own_lines {
        array
            .lines()
            .filter(|line| !quoted(line).iter().any(is_dropped))
            .collect::<Vec<_>>()
            .join("\n")
    } else {
        let names: Vec<String> = quoted(array)
            .into_iter()
            .filter(|q| !is_dropped(q))
            .map(|q| format!("\"{q}\""))
            .collect();
        format!("[{}]", names.join(", "))
    };
    let text = format!("{}{new_array}{}", &manifest[..start], &manifest[end..]);
    for d in dropped {
        if text.contains(d.as_str()) {
            return Err(Error::Usage(format!(
                "Cargo.toml still mentions {d} outside the workspace members, and the student edition leaves it out\n  help: remove that mention from Cargo.toml (only `members` is rewritten)"
            )));
        }
    }
    Ok(text)
}

/// The `name` of a `[package]` manifest.
pub(super) fn package_name(manifest: &str) -> Option<String> {
    let mut in_package = false;
    for line in manifest.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            in_package = t == "[package]";
            continue;
        }
        if in_package && t.starts_with("name") {
            return quoted(t).into_iter().next();
        }
    }
    None
}

/// `Cargo.lock` without the packages in `dropped`, and without them in other packages'
/// dependency lists.
pub fn rewrite_lock(lock: &str, dropped: &[String]) -> String {
    let mut out = String::with_capacity(lock.len());
    for block in lock.split_inclusive("\n\n") {
        let name = block
            .lines()
            .find(|l| l.starts_with("name = "))
            .and_then(|l| quoted(l).into_iter().next());
        if block.starts_with("[[package]]") && name.is_some_and(|n| dropped.contains(&n)) {
            continue;
        }
        for line in block.split_inclusive('\n') {
            let t = line.trim().trim_end_matches(',');
            let dependency = t
                .strip_prefix('"')
                .and_then(|x| x.strip_suffix('"'))
                .map(|x| x.split(' ').next().unwrap_or(x));
            if dependency.is_some_and(|d| dropped.iter().any(|x| x == d)) {
                continue;
            }
            out.push_str(line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANIFEST: &str = "[workspace]\nresolver = \"3\"\nmembers = [\n    \"crates/a\",\n    \"solutions/lab4\",\n    \"grader\",\n]\n\n[workspace.dependencies]\na = { path = \"crates/a\" }\n";

    #[test]
    fn members_are_read_and_the_solution_is_dropped() {
        assert_eq!(
            workspace_members(MANIFEST),
            ["crates/a", "solutions/lab4", "grader"]
        );
        let text = rewrite_manifest(MANIFEST, &["solutions/lab4".to_owned()]).unwrap();
        assert_eq!(workspace_members(&text), ["crates/a", "grader"]);
        assert!(text.ends_with("a = { path = \"crates/a\" }\n"), "{text}");
    }

    #[test]
    fn a_one_line_members_array_is_rewritten_too() {
        let text = rewrite_manifest(
            "[workspace]\nmembers = [\"a\", \"solutions/x\"]\n",
            &["solutions/x".to_owned()],
        )
        .unwrap();
        assert_eq!(text, "[workspace]\nmembers = [\"a\"]\n");
    }

    #[test]
    fn a_dropped_member_mentioned_elsewhere_stops_the_release() {
        let manifest = format!("{MANIFEST}sol = {{ path = \"solutions/lab4\" }}\n");
        let err = rewrite_manifest(&manifest, &["solutions/lab4".to_owned()]).unwrap_err();
        assert!(err.to_string().contains("solutions/lab4"), "{err}");
    }

    #[test]
    fn the_lock_forgets_dropped_packages() {
        let lock = "version = 4\n\n[[package]]\nname = \"a\"\nversion = \"0.1.0\"\ndependencies = [\n \"b\",\n \"sol\",\n]\n\n[[package]]\nname = \"sol\"\nversion = \"0.1.0\"\n\n[[package]]\nname = \"b\"\nversion = \"0.1.0\"\n";
        let out = rewrite_lock(lock, &["sol".to_owned()]);
        assert_eq!(
            out,
            "version = 4\n\n[[package]]\nname = \"a\"\nversion = \"0.1.0\"\ndependencies = [\n \"b\",\n]\n\n[[package]]\nname = \"b\"\nversion = \"0.1.0\"\n"
        );
    }
}
