//! Every race property a lab's monitor can report belongs to a rule of that lab
//! (`race_properties` in `labs/<lab>/rules.json`), so a broken property sends the student
//! to a rule, never to a bare "race: <property>"; and every property a rule lists is one
//! the monitor can report.
//!
//! The properties are read from the code that reports them: the lab's race crate
//! (`labs/<lab>/race/src`) and the shared explorer (`grader/race/explore/src`). A function
//! reports a property where its body sets a `Violation`'s `property:` field: to a string
//! literal, to `format!("..{}..", story::noun())` (the lab's noun, from its `Kit`), or to
//! one of its own parameters, in which case every call of it that passes a string literal
//! there reports that literal. A lab reports what its own functions report and what the
//! explorer's functions it calls (by name, and what those call in turn) report. A
//! `property:` set any other way is refused, so a new way of naming one cannot go unseen.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use serde_json::Value;

/// One function of a crate, as far as the check needs it.
#[derive(Default)]
struct Function {
    /// Properties its body names, each with where.
    properties: Vec<(String, String)>,
    /// Properties built from `story::noun()`: the format string, with where.
    noun_templates: Vec<(String, String)>,
    /// The position (among its arguments, `self` left out) of a parameter its body sets
    /// `property:` to.
    property_parameter: Option<usize>,
    /// What it calls: (name, the string literal at each argument position, where).
    calls: Vec<(String, Vec<Option<String>>, String)>,
    /// Its own parameters it passes on: (the function called, the argument position, the
    /// position of the parameter among its own). A function that passes a parameter on
    /// to another's property parameter reports, through it, what its callers pass.
    forwards: Vec<(String, usize, usize)>,
}

/// The functions of one crate's `src`, by name (functions of the same name merged), and
/// the problems met reading them.
#[derive(Default)]
struct Crate {
    functions: BTreeMap<String, Function>,
    /// `noun: "<word>"`, if the crate names one (a lab's `Kit`).
    noun: Option<String>,
    problems: Vec<String>,
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let entries = std::fs::read_dir(&d).unwrap_or_else(|e| panic!("read {}: {e}", d.display()));
        for entry in entries {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn read_crate(src: &Path) -> Crate {
    let mut krate = Crate::default();
    for file in rust_files(src) {
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("read {}: {e}", file.display()));
        let tokens = TokenStream::from_str(&text)
            .unwrap_or_else(|e| panic!("{} does not lex: {e}", file.display()));
        let shown = file
            .strip_prefix(crate::root())
            .unwrap_or(&file)
            .display()
            .to_string();
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        items(&tokens, &shown, &mut krate);
    }
    krate
}

/// A string literal's value, if `t` is one (plain, no escapes needed for property names).
fn string(t: &TokenTree) -> Option<String> {
    let TokenTree::Literal(l) = t else {
        return None;
    };
    let s = l.to_string();
    s.strip_prefix('"')?.strip_suffix('"').map(str::to_owned)
}

fn ident(t: Option<&TokenTree>) -> Option<String> {
    match t {
        Some(TokenTree::Ident(i)) => Some(i.to_string()),
        _ => None,
    }
}

fn punct(t: Option<&TokenTree>, c: char) -> bool {
    matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c)
}

fn group(t: Option<&TokenTree>, d: Delimiter) -> Option<Vec<TokenTree>> {
    match t {
        Some(TokenTree::Group(g)) if g.delimiter() == d => Some(g.stream().into_iter().collect()),
        _ => None,
    }
}

fn place(shown: &str, t: &TokenTree) -> String {
    let at = t.span().start();
    format!("{shown}:{}:{}", at.line, at.column + 1)
}

/// The tokens of a parenthesised list, split at its top-level commas.
fn split_commas(tokens: &[TokenTree]) -> Vec<Vec<TokenTree>> {
    let mut out = vec![Vec::new()];
    for t in tokens {
        if punct(Some(t), ',') {
            out.push(Vec::new());
        } else if let Some(last) = out.last_mut() {
            last.push(t.clone());
        }
    }
    if out.last().is_some_and(Vec::is_empty) {
        out.pop();
    }
    out
}

/// The names of a function's parameters, `self` left out.
fn parameters(list: &[TokenTree]) -> Vec<String> {
    split_commas(list)
        .iter()
        .filter_map(|p| {
            let names: Vec<String> = p
                .iter()
                .take_while(|t| !punct(Some(t), ':'))
                .filter_map(|t| ident(Some(t)))
                .filter(|n| n != "mut")
                .collect();
            match names.as_slice() {
                [name] if name != "self" => Some(name.clone()),
                _ => None,
            }
        })
        .collect()
}

/// Finds the functions among `tokens`, at any depth, and what the crate's `noun:` is.
fn items(tokens: &[TokenTree], shown: &str, krate: &mut Crate) {
    let mut i = 0;
    while i < tokens.len() {
        if ident(tokens.get(i)).as_deref() == Some("noun")
            && punct(tokens.get(i + 1), ':')
            && let Some(word) = tokens.get(i + 2).and_then(string)
        {
            krate.noun = Some(word);
        }
        if ident(tokens.get(i)).as_deref() == Some("fn")
            && let Some(name) = ident(tokens.get(i + 1))
        {
            // The parameters are the first parenthesised group after the name (generics
            // are punctuation), the body the first braced group after them.
            let rest = &tokens[i + 2..];
            let params = rest
                .iter()
                .position(|t| group(Some(t), Delimiter::Parenthesis).is_some());
            let body = params.and_then(|p| {
                rest[p..]
                    .iter()
                    .position(|t| punct(Some(t), ';') || group(Some(t), Delimiter::Brace).is_some())
                    .map(|b| p + b)
            });
            if let (Some(p), Some(b)) = (params, body)
                && let Some(body) = group(rest.get(b), Delimiter::Brace)
            {
                let names =
                    parameters(&group(rest.get(p), Delimiter::Parenthesis).unwrap_or_default());
                let mut f = Function::default();
                function_body(&body, &names, shown, &mut f, &mut krate.problems);
                let known = krate.functions.entry(name).or_default();
                known.properties.extend(f.properties);
                known.noun_templates.extend(f.noun_templates);
                known.property_parameter = known.property_parameter.or(f.property_parameter);
                known.calls.extend(f.calls);
                known.forwards.extend(f.forwards);
                items(&body, shown, krate);
                i += 2 + b + 1;
                continue;
            }
        }
        if let Some(TokenTree::Group(g)) = tokens.get(i) {
            let inner: Vec<TokenTree> = g.stream().into_iter().collect();
            items(&inner, shown, krate);
        }
        i += 1;
    }
}

/// What one function body (at any depth) sets `property:` to, and calls.
fn function_body(
    tokens: &[TokenTree],
    params: &[String],
    shown: &str,
    f: &mut Function,
    problems: &mut Vec<String>,
) {
    for (i, t) in tokens.iter().enumerate() {
        let name = ident(Some(t));
        let after_dot = i > 0 && punct(tokens.get(i - 1), '.');
        if name.as_deref() == Some("property") && !after_dot && punct(tokens.get(i + 1), ':')
            // Not a path (`property::x`).
            && !punct(tokens.get(i + 2), ':')
        {
            let value = tokens.get(i + 2);
            let at = place(shown, t);
            if let Some(word) = value.and_then(string) {
                f.properties.push((word, at));
            } else if let Some(p) = ident(value).and_then(|v| params.iter().position(|n| *n == v)) {
                f.property_parameter = Some(p);
            } else if ident(value).as_deref() == Some("format")
                && punct(tokens.get(i + 3), '!')
                && let Some(args) = group(tokens.get(i + 4), Delimiter::Parenthesis)
                && let [first, rest] = split_commas(&args).as_slice()
                && let Some(template) = first.first().and_then(string)
                && rest.iter().map(ToString::to_string).collect::<String>() == "story::noun()"
            {
                f.noun_templates.push((template, at));
            } else {
                problems.push(format!(
                    "{at}: `property:` is set to something this check cannot read: name it with a string literal, a parameter of the function, or format!(\"..{{}}..\", story::noun())"
                ));
            }
        }
        if let Some(called) = name
            && (i == 0 || ident(tokens.get(i - 1)).as_deref() != Some("fn"))
            && let Some(args) = group(tokens.get(i + 1), Delimiter::Parenthesis)
        {
            let args = split_commas(&args);
            let literals = args
                .iter()
                .map(|a| match a.as_slice() {
                    [one] => string(one),
                    _ => None,
                })
                .collect();
            for (at, a) in args.iter().enumerate() {
                if let [one] = a.as_slice()
                    && let Some(own) =
                        ident(Some(one)).and_then(|v| params.iter().position(|n| *n == v))
                {
                    f.forwards.push((called.clone(), at, own));
                }
            }
            f.calls.push((called, literals, place(shown, t)));
        }
        if let Some(TokenTree::Group(g)) = Some(t) {
            let inner: Vec<TokenTree> = g.stream().into_iter().collect();
            function_body(&inner, params, shown, f, problems);
        }
    }
}

/// Every property `lab` (its race crate, on the explorer `shared`) can report, each with
/// one place that reports it.
fn reported(lab: &Crate, shared: &Crate) -> BTreeMap<String, String> {
    let noun = lab.noun.clone().unwrap_or_else(|| "request".to_owned());
    let mut out = BTreeMap::new();
    let known = |name: &str| {
        lab.functions
            .get(name)
            .or_else(|| shared.functions.get(name))
    };
    // Which parameter of each function names the property it reports: its own
    // `property:`, or one it passes on to such a parameter of another, to any depth.
    let mut parameter: BTreeMap<&str, usize> = lab
        .functions
        .iter()
        .chain(&shared.functions)
        .filter_map(|(name, f)| Some((name.as_str(), f.property_parameter?)))
        .collect();
    loop {
        let before = parameter.len();
        for (name, f) in lab.functions.iter().chain(&shared.functions) {
            if parameter.contains_key(name.as_str()) {
                continue;
            }
            if let Some((_, _, own)) = f.forwards.iter().find(|(called, at, _)| {
                known(called).is_some() && parameter.get(called.as_str()) == Some(at)
            }) {
                parameter.insert(name, *own);
            }
        }
        if parameter.len() == before {
            break;
        }
    }
    let parameterised = |name: &str| parameter.get(name).copied();
    let own = |f: &Function, out: &mut BTreeMap<String, String>| {
        for (word, at) in &f.properties {
            out.entry(word.clone()).or_insert_with(|| at.clone());
        }
        for (template, at) in &f.noun_templates {
            out.entry(template.replace("{}", &noun))
                .or_insert_with(|| at.clone());
        }
        for (called, literals, at) in &f.calls {
            if let Some(word) =
                parameterised(called).and_then(|p| literals.get(p).cloned().flatten())
            {
                out.entry(word).or_insert_with(|| at.clone());
            }
        }
    };
    for f in lab.functions.values() {
        own(f, &mut out);
    }
    // The explorer's functions the lab calls, and the ones those call, by name.
    let mut todo: Vec<String> = lab
        .functions
        .values()
        .flat_map(|f| f.calls.iter().map(|(name, _, _)| name.clone()))
        .collect();
    let mut seen = BTreeSet::new();
    while let Some(name) = todo.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        if let Some(f) = shared.functions.get(&name) {
            own(f, &mut out);
            todo.extend(f.calls.iter().map(|(name, _, _)| name.clone()));
        }
    }
    out
}

#[test]
fn every_race_property_a_monitor_reports_belongs_to_a_rule_of_its_lab() {
    let root = crate::root();
    let shared = read_crate(&root.join("grader/race/explore/src"));
    let mut problems = shared.problems.clone();
    let mut labs_checked = 0;
    let mut labs: Vec<PathBuf> = std::fs::read_dir(root.join("labs"))
        .expect("read labs/")
        .map(|e| e.expect("a folder entry").path())
        .filter(|p| p.join("race/src").is_dir())
        .collect();
    labs.sort();
    for lab in labs {
        let name = lab
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let krate = read_crate(&lab.join("race/src"));
        problems.extend(krate.problems.iter().cloned());
        let rules: Value = serde_json::from_str(
            &std::fs::read_to_string(lab.join("rules.json"))
                .unwrap_or_else(|e| panic!("read labs/{name}/rules.json: {e}")),
        )
        .unwrap_or_else(|e| panic!("labs/{name}/rules.json: {e}"));
        let listed: BTreeSet<String> = rules["rules"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|r| r["race_properties"].as_array().into_iter().flatten())
            .filter_map(|p| p.as_str().map(str::to_owned))
            .collect();
        let reported = reported(&krate, &shared);
        assert!(
            !reported.is_empty(),
            "read no race property from labs/{name}/race/src: the check no longer reads how the monitor names them"
        );
        for (property, at) in &reported {
            if !listed.contains(property) {
                problems.push(format!(
                    "{at}: lab {name}'s race checks can report `{property}`, which no rule of labs/{name}/rules.json lists in its race_properties: add it to the rule a student who breaks it breaks"
                ));
            }
        }
        for property in listed.difference(&reported.keys().cloned().collect()) {
            problems.push(format!(
                "labs/{name}/rules.json lists the race property `{property}`, which the race checks of {name} never report: correct its name or remove it"
            ));
        }
        labs_checked += 1;
    }
    assert!(labs_checked > 0, "no lab with race checks under labs/");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
