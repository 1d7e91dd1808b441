//! The kit's manifests and `Cargo.lock` without the packages a student edition leaves
//! out (the reference solutions, and the crates of labs it does not hold): the root
//! manifest's members and workspace dependencies, the grader's dependencies on other
//! labs' plug-ins and their registration, and the lock file's packages that nothing kept
//! needs any more.

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
    // A workspace dependency on a dropped member, on a line of its own, goes with it.
    let manifest: String = manifest
        .split_inclusive('\n')
        .filter(|line| {
            let t = line.trim_start();
            !dropped.iter().any(|d| {
                t.contains(&format!("path = \"{d}\"")) && !t.starts_with('"') && !t.starts_with('[')
            })
        })
        .collect();
    let manifest = manifest.as_str();
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
        if text.contains(&format!("\"{d}\"")) {
            return Err(Error::Usage(format!(
                "Cargo.toml still mentions {d} outside the workspace members, and the student edition leaves it out\n  help: remove that mention from Cargo.toml (only `members` is rewritten)"
            )));
        }
    }
    Ok(text)
}

/// A package manifest without its dependencies on the packages in `dropped` (lines such
/// as `x_plugin.workspace = true` or `x_plugin = { path = ".." }`).
pub fn drop_dependencies(manifest: &str, dropped: &[String]) -> String {
    manifest
        .split_inclusive('\n')
        .filter(|line| {
            let key = line
                .split(['=', '.'])
                .next()
                .unwrap_or("")
                .trim()
                .trim_matches('"');
            !dropped.iter().any(|d| d == key)
        })
        .collect()
}

/// Rust source without the lines that name a path in one of the crates in `dropped`
/// (`.with(x_plugin::X)`): the grader's registration of labs an edition leaves
/// out.
pub fn drop_registrations(source: &str, dropped: &[String]) -> String {
    source
        .split_inclusive('\n')
        .filter(|line| !dropped.iter().any(|d| line.contains(&format!("{d}::"))))
        .collect()
}

/// `Cargo.lock` without the packages nothing in `roots` (the workspace packages kept)
/// needs, directly or through others.
pub fn prune_lock(lock: &str, roots: &[String]) -> String {
    let blocks: Vec<&str> = lock.split_inclusive("\n\n").collect();
    let name_of = |block: &str| {
        block
            .lines()
            .find(|l| l.starts_with("name = "))
            .and_then(|l| quoted(l).into_iter().next())
    };
    let version_of = |block: &str| {
        block
            .lines()
            .find(|l| l.starts_with("version = "))
            .and_then(|l| quoted(l).into_iter().next())
    };
    // A dependency line names a package, with its version when several are locked.
    let deps_of = |block: &str| -> Vec<(String, Option<String>)> {
        let mut deps = Vec::new();
        let mut inside = false;
        for line in block.lines() {
            if line.starts_with("dependencies = [") {
                inside = true;
                continue;
            }
            if inside {
                if line.starts_with(']') {
                    inside = false;
                    continue;
                }
                if let Some(q) = quoted(line).into_iter().next() {
                    let mut parts = q.split(' ');
                    let name = parts.next().unwrap_or("").to_owned();
                    deps.push((name, parts.next().map(str::to_owned)));
                }
            }
        }
        deps
    };
    let mut keep = vec![false; blocks.len()];
    let mut stack: Vec<(String, Option<String>)> =
        roots.iter().map(|r| (r.clone(), None)).collect();
    while let Some((name, version)) = stack.pop() {
        for (i, block) in blocks.iter().enumerate() {
            if keep[i] || !block.starts_with("[[package]]") {
                continue;
            }
            let same = name_of(block).as_deref() == Some(name.as_str())
                && version
                    .as_deref()
                    .is_none_or(|v| version_of(block).as_deref() == Some(v));
            if same {
                keep[i] = true;
                stack.extend(deps_of(block));
            }
        }
    }
    blocks
        .iter()
        .zip(keep)
        .filter(|(block, kept)| *kept || !block.starts_with("[[package]]"))
        .map(|(block, _)| *block)
        .collect::<String>()
        .trim_end_matches('\n')
        .to_owned()
        + "\n"
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

    const MANIFEST: &str = "[workspace]\nresolver = \"3\"\nmembers = [\n    \"crates/a\",\n    \"solutions/one\",\n    \"grader\",\n]\n\n[workspace.dependencies]\na = { path = \"crates/a\" }\n";

    #[test]
    fn members_are_read_and_the_solution_is_dropped() {
        assert_eq!(
            workspace_members(MANIFEST),
            ["crates/a", "solutions/one", "grader"]
        );
        let text = rewrite_manifest(MANIFEST, &["solutions/one".to_owned()]).unwrap();
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
        let manifest = format!("{MANIFEST}exclude = [\"solutions/one\"]\n");
        let err = rewrite_manifest(&manifest, &["solutions/one".to_owned()]).unwrap_err();
        assert!(err.to_string().contains("solutions/one"), "{err}");
    }

    #[test]
    fn workspace_dependencies_of_dropped_members_go_too() {
        let text = rewrite_manifest(MANIFEST, &["crates/a".to_owned()]).unwrap();
        assert_eq!(workspace_members(&text), ["solutions/one", "grader"]);
        assert!(!text.contains("crates/a"), "{text}");
    }

    #[test]
    fn the_grader_forgets_the_plugins_of_labs_left_out() {
        let manifest = "[dependencies]\nclap.workspace = true\na_plugin.workspace = true\nb_plugin = { path = \"../labs/b/plugin\" }\n";
        assert_eq!(
            drop_dependencies(manifest, &["b_plugin".to_owned()]),
            "[dependencies]\nclap.workspace = true\na_plugin.workspace = true\n"
        );
        let labs = "Registry::new()\n        .with(a_plugin::A)\n        .with(b_plugin::B)\n";
        assert_eq!(
            drop_registrations(labs, &["a_plugin".to_owned()]),
            "Registry::new()\n        .with(b_plugin::B)\n"
        );
    }

    #[test]
    fn the_lock_keeps_only_what_the_kept_packages_need() {
        let lock = "version = 4\n\n[[package]]\nname = \"a\"\nversion = \"0.1.0\"\ndependencies = [\n \"c 2.0.0\",\n]\n\n[[package]]\nname = \"b\"\nversion = \"0.1.0\"\ndependencies = [\n \"c 1.0.0\",\n \"d\",\n]\n\n[[package]]\nname = \"c\"\nversion = \"1.0.0\"\n\n[[package]]\nname = \"c\"\nversion = \"2.0.0\"\n\n[[package]]\nname = \"d\"\nversion = \"0.3.0\"\n";
        assert_eq!(
            prune_lock(lock, &["a".to_owned()]),
            "version = 4\n\n[[package]]\nname = \"a\"\nversion = \"0.1.0\"\ndependencies = [\n \"c 2.0.0\",\n]\n\n[[package]]\nname = \"c\"\nversion = \"2.0.0\"\n"
        );
        assert_eq!(prune_lock(lock, &["a".to_owned(), "b".to_owned()]), lock);
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
