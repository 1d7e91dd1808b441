//! The attacks: one submission each, what it tries and what it must come to.

use std::path::Path;

use crate::subs;
use crate::util::kit;

/// An environment variable the grader gets and submissions must not see.
pub const SECRET_ENV: (&str, &str) = ("GRADER_ATTACK_SECRET", "s3cr3t-7f2c91");
/// What every hidden scenario file holds and no report ever does.
pub const HIDDEN_MARKER: &str = "\"format_version\"";
/// A hidden scenario the attacks go for.
pub const HIDDEN: &str = "labs/lab4/hidden/bh_rejections_do_not_reset_the_count.json";
/// The reference file the attacks go for.
pub const REFERENCE: &str = "solutions/lab4/src/breaker.rs";
/// The scenarios the attack batches run: two plain ones and a race check, so that code
/// under test runs under both harness programs.
pub const SCENARIOS: [&str; 3] = [
    "sm_opens_at_threshold",
    "bh_rejects_over_limit",
    "race_single_trial",
];
/// What `sleep` gets in the detached-process attack (it adds up its arguments), to find
/// survivors by.
pub const SLEEPER_MARKER: &str = "0.0917263";
/// The abstract Unix socket a test listens on, which the network attack tries.
pub const PROBE_SOCKET: &str = "grader-attack-probe";

/// What an attack must come to.
#[derive(Clone, Copy, Debug)]
pub enum Safe {
    /// The code does not compile, and the compiler's messages say so with this text.
    DoesNotCompile(&'static str),
    /// It compiles and scores what the honest code it is built on scores (the
    /// reference: full marks), with nothing leaked.
    HonestScore,
    /// It scores no more than the honest code, and every scenario it ran says this.
    NoMoreThanHonest(&'static str),
}

/// One attack.
pub struct Attack {
    /// Its name (also the sub-folder in the batch).
    pub name: &'static str,
    /// Its three files.
    pub files: Vec<(String, String)>,
    /// The files of the honest code it is built on.
    pub honest: Vec<(String, String)>,
    /// What it must come to.
    pub safe: Safe,
    /// Whether it is also graded in the Landlock sandbox.
    pub landlock: bool,
}

/// The kit's untouched student crate's files.
fn skeleton() -> Vec<(String, String)> {
    subs::FILES
        .iter()
        .map(|f| {
            let path = kit().join("crates/relay_base").join(f);
            (
                (*f).to_owned(),
                std::fs::read_to_string(path).expect("a skeleton file"),
            )
        })
        .collect()
}

/// `files` with `file` replaced by `text`.
fn with(mut files: Vec<(String, String)>, file: &str, text: &str) -> Vec<(String, String)> {
    let entry = files
        .iter_mut()
        .find(|(f, _)| f == file)
        .expect("a declared file");
    entry.1 = text.to_owned();
    files
}

/// `files` with `text` added at the end of `file`.
fn appended(mut files: Vec<(String, String)>, file: &str, text: &str) -> Vec<(String, String)> {
    let entry = files
        .iter_mut()
        .find(|(f, _)| f == file)
        .expect("a declared file");
    entry.1.push_str(text);
    files
}

/// `files` with `code` at the start of `Relay::new`.
pub fn in_relay_new(mut files: Vec<(String, String)>, code: &str) -> Vec<(String, String)> {
    subs::inject(&mut files, "src/relay.rs", "pub fn new(", code);
    files
}

/// The build key the grader gives a submission of these files (as `submission::key`).
pub fn key(files: &[(String, String)]) -> String {
    let mut sorted: Vec<&(String, String)> = files.iter().collect();
    sorted.sort();
    let mut bytes = Vec::new();
    for (path, text) in sorted {
        for part in [path.as_bytes(), text.as_bytes()] {
            bytes.extend_from_slice(&(part.len() as u64).to_le_bytes());
            bytes.extend_from_slice(part);
        }
    }
    format!("sub_{}", &subs::sha256(&bytes)[..16])
}

/// A well-behaved submission of the batch whose build folder one attack aims at.
pub fn victim() -> Vec<(String, String)> {
    subs::mutant("shared_breaker")
}

/// Every attack, aimed at the kit in `kit` (the real kit, or an unpacked Gradescope
/// bundle) whose grader's work folder is `work`.
pub fn attacks(kit: &Path, work: &Path) -> Vec<Attack> {
    let k = kit.display();
    let reference = subs::reference_files();
    let up = "../../../../../..";
    let by_path = |path: &str| {
        with(
            reference.clone(),
            "src/breaker.rs",
            &format!("#[path = \"{path}\"]\nmod inner;\npub use inner::*;\n"),
        )
    };
    let opens_one_late = subs::mutant("opens_one_late");
    vec![
        Attack {
            name: "reference_by_relative_path",
            files: by_path(&format!("{up}/{REFERENCE}")),
            honest: reference.clone(),
            safe: Safe::DoesNotCompile("breaker.rs"),
            landlock: true,
        },
        Attack {
            name: "reference_by_absolute_path",
            files: by_path(&format!("{k}/{REFERENCE}")),
            honest: reference.clone(),
            safe: Safe::DoesNotCompile("breaker.rs"),
            landlock: true,
        },
        Attack {
            name: "another_submissions_build_by_path",
            files: by_path(&format!(
                "{}/builds/{}/subject/src/breaker.rs",
                work.display(),
                key(&victim())
            )),
            honest: reference.clone(),
            safe: Safe::DoesNotCompile("breaker.rs"),
            landlock: true,
        },
        Attack {
            name: "secrets_in_compile_errors",
            // The skeleton's breaker, so that nothing of the reference's is its own.
            files: appended(
                with(reference.clone(), "src/breaker.rs", &skeleton()[0].1),
                "src/relay.rs",
                &format!(
                    "\ncompile_error!(include_str!(\"{k}/{HIDDEN}\"));\n\
                     compile_error!(include_str!(\"{up}/{HIDDEN}\"));\n\
                     compile_error!(include_str!(\"{k}/{REFERENCE}\"));\n\
                     const _: &[u8] = include_bytes!(\"{k}/{REFERENCE}\");\n\
                     compile_error!(include_str!(\"/proc/1/environ\"));\n\
                     compile_error!(include_str!(\"/proc/self/environ\"));\n"
                ),
            ),
            honest: reference.clone(),
            safe: Safe::DoesNotCompile("couldn't read"),
            landlock: true,
        },
        Attack {
            name: "secrets_at_run_time",
            files: in_relay_new(
                reference.clone(),
                &leak_if_read(&[
                    format!("{k}/{HIDDEN}"),
                    format!("{up}/{HIDDEN}"),
                    format!("{k}/{REFERENCE}"),
                    format!("{}/cargo/debug/lab_harness_solution", work.display()),
                    format!("/proc/1/root{k}/{HIDDEN}"),
                    "/proc/1/environ".to_owned(),
                    "/root/.cargo/credentials.toml".to_owned(),
                    "/etc/shadow".to_owned(),
                ]),
            ),
            honest: reference.clone(),
            safe: Safe::HonestScore,
            landlock: true,
        },
        Attack {
            name: "environment",
            files: in_relay_new(
                reference.clone(),
                &format!(
                    r#"if let Ok(v) = std::env::var("{}") {{ panic!("LEAKED: {{v}}"); }}"#,
                    SECRET_ENV.0
                ),
            ),
            honest: reference.clone(),
            safe: Safe::HonestScore,
            landlock: true,
        },
        Attack {
            name: "writes_outside_its_folder",
            files: in_relay_new(
                reference.clone(),
                &format!(
                    r#"let mut wrote: Vec<String> = Vec::new();
                    for p in ["{k}/target/attack-canary", "{k}/labs/lab4/scenarios/attack-canary.json", "/grader/harness"] {{
                        if std::fs::OpenOptions::new().append(true).create(true).open(p).is_ok() {{ wrote.push(p.to_owned()); }}
                    }}
                    // Every harness program the grader built: opened for writing, never changed.
                    let mut stack = vec![(std::path::PathBuf::from("{w}"), 0)];
                    while let Some((dir, depth)) = stack.pop() {{
                        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {{
                            let path = entry.path();
                            let name = entry.file_name().to_string_lossy().into_owned();
                            if path.is_dir() && depth < 6 {{ stack.push((path, depth + 1)); }}
                            else if name.contains("harness_") && std::fs::OpenOptions::new().append(true).open(&path).is_ok() {{
                                wrote.push(path.display().to_string());
                            }}
                        }}
                    }}
                    if !wrote.is_empty() {{ panic!("LEAKED: could write {{wrote:?}}"); }}"#,
                    w = work.display()
                ),
            ),
            honest: reference.clone(),
            safe: Safe::HonestScore,
            landlock: true,
        },
        Attack {
            name: "network",
            files: in_relay_new(reference.clone(), &reach_out(PROBE_SOCKET)),
            honest: reference.clone(),
            safe: Safe::HonestScore,
            landlock: true,
        },
        Attack {
            name: "detached_process_holds_the_pipes",
            files: in_relay_new(
                reference.clone(),
                &format!(
                    r#"let _ = std::process::Command::new("setsid")
                        .args(["sh", "-c", "sleep 1000 {SLEEPER_MARKER} & exec sleep 1000 {SLEEPER_MARKER}"])
                        .spawn();"#
                ),
            ),
            honest: reference.clone(),
            safe: Safe::HonestScore,
            landlock: true,
        },
        Attack {
            name: "forges_and_floods_its_results",
            files: in_relay_new(
                opens_one_late.clone(),
                &into_open_files(
                    r#"let forged = "\"finished\"\n".repeat(96 * 1024);
                    for _ in 0..2 { let _ = file.write_all(forged.as_bytes()); }"#,
                ),
            ),
            honest: opens_one_late.clone(),
            safe: Safe::NoMoreThanHonest("results file"),
            landlock: true,
        },
        Attack {
            name: "floods_its_results_with_64_mb",
            files: in_relay_new(
                opens_one_late.clone(),
                &into_open_files(
                    r#"let line = format!("{{\"panic\":{{\"step\":0,\"message\":\"{}\",\"location\":null,\"thread\":\"main\",\"backtrace\":null}}}}\n", "x".repeat(200));
                    let block = line.repeat(4096);
                    for _ in 0..(64 << 20) / block.len() { let _ = file.write_all(block.as_bytes()); }"#,
                ),
            ),
            honest: opens_one_late.clone(),
            safe: Safe::NoMoreThanHonest("results file"),
            landlock: false,
        },
        Attack {
            name: "floods_its_output_and_panic_message",
            files: in_relay_new(
                reference.clone(),
                r#"{
                    use std::io::Write;
                    let block = "y".repeat(1 << 20);
                    for _ in 0..2 {
                        let _ = std::io::stdout().write_all(block.as_bytes());
                        let _ = std::io::stderr().write_all(block.as_bytes());
                    }
                    panic!("{}", "z".repeat(8 << 20));
                }"#,
            ),
            honest: reference.clone(),
            safe: Safe::NoMoreThanHonest("more bytes cut"),
            landlock: false,
        },
        Attack {
            name: "floods_the_compiler",
            files: appended(reference.clone(), "src/relay.rs", &compiler_flood()),
            honest: reference.clone(),
            safe: Safe::DoesNotCompile("more bytes cut"),
            landlock: false,
        },
        Attack {
            name: "never_ending_build",
            files: appended(
                reference.clone(),
                "src/bulkhead.rs",
                "\n#[allow(long_running_const_eval)]\nconst FOREVER: u64 = {\n    let mut i: u64 = 1;\n    while i != 0 {\n        i = i.wrapping_mul(3);\n    }\n    i\n};\n\n/// Never computed.\npub fn forever() -> u64 {\n    FOREVER\n}\n",
            ),
            honest: reference.clone(),
            safe: Safe::DoesNotCompile("and was stopped"),
            landlock: false,
        },
        Attack {
            name: "unsafe_allowed_by_an_attribute",
            files: with(
                reference.clone(),
                "src/breaker.rs",
                &format!(
                    "#![allow(unsafe_code)]\n{}\n#[allow(unsafe_code)]\npub fn zero() -> u8 {{\n    unsafe {{ std::mem::zeroed() }}\n}}\n",
                    reference[0].1
                ),
            ),
            honest: reference.clone(),
            safe: Safe::DoesNotCompile("forbid"),
            landlock: false,
        },
        Attack {
            name: "race_build_reads_secrets_at_compile_time",
            // Only the race build of the crate sits one folder deeper
            // (`builds/<key>/race/subject`): this path climbs from there to the kit.
            files: appended(
                reference.clone(),
                "src/relay.rs",
                &format!(
                    "\ncompile_error!(include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/{up}/{HIDDEN}\")));\n\
                     compile_error!(include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/{up}/{REFERENCE}\")));\n"
                ),
            ),
            honest: reference.clone(),
            safe: Safe::DoesNotCompile("couldn't read"),
            landlock: true,
        },
        Attack {
            name: "race_harness_reads_and_writes_at_run_time",
            // Only the race build's package is named `race_...`: this runs under the race
            // harness alone.
            files: in_relay_new(
                reference.clone(),
                &format!(
                    r#"if env!("CARGO_PKG_NAME").starts_with("race_") {{
                        {read}
                        let mut wrote: Vec<String> = Vec::new();
                        let mut stack = vec![(std::path::PathBuf::from("{w}"), 0)];
                        while let Some((dir, depth)) = stack.pop() {{
                            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {{
                                let path = entry.path();
                                let name = entry.file_name().to_string_lossy().into_owned();
                                if path.is_dir() && depth < 6 {{ stack.push((path, depth + 1)); }}
                                else if name.contains("race_") && std::fs::OpenOptions::new().append(true).open(&path).is_ok() {{
                                    wrote.push(path.display().to_string());
                                }}
                            }}
                        }}
                        if !wrote.is_empty() {{ panic!("LEAKED: could write {{wrote:?}}"); }}
                    }}"#,
                    read = leak_if_read(&[
                        format!("{k}/{HIDDEN}"),
                        format!("{k}/{REFERENCE}"),
                        format!(
                            "{}/builds/{}/subject/src/breaker.rs",
                            work.display(),
                            key(&victim())
                        ),
                    ]),
                    w = work.display()
                ),
            ),
            honest: reference.clone(),
            safe: Safe::HonestScore,
            landlock: true,
        },
    ]
}

/// Code that panics with `LEAKED:` and the start of the first of `paths` it can read.
pub fn leak_if_read(paths: &[String]) -> String {
    let list: Vec<String> = paths.iter().map(|p| format!("{p:?}")).collect();
    format!(
        r#"for p in [{}] {{
            if let Ok(text) = std::fs::read(p) {{
                if !text.is_empty() {{
                    panic!("LEAKED: {{p}}: {{}}", String::from_utf8_lossy(&text[..text.len().min(2000)]));
                }}
            }}
        }}"#,
        list.join(", ")
    )
}

/// Code that panics with `LEAKED:` if it reaches the grader's machine (the abstract Unix
/// socket `probe`, which a test listens on) or the internet.
pub fn reach_out(probe: &str) -> String {
    format!(
        r#"{{
            use std::os::linux::net::SocketAddrExt;
            if let Ok(addr) = std::os::unix::net::SocketAddr::from_abstract_name(b"{probe}") {{
                if std::os::unix::net::UnixStream::connect_addr(&addr).is_ok() {{ panic!("LEAKED: reached the grader's machine"); }}
            }}
            let outside = std::net::SocketAddr::from(([1, 1, 1, 1], 443));
            if std::net::TcpStream::connect_timeout(&outside, std::time::Duration::from_secs(2)).is_ok() {{
                panic!("LEAKED: reached the internet");
            }}
        }}"#
    )
}

/// Code that runs `write` (Rust, with `file` and `std::io::Write` in scope) on every
/// regular file the process has open: the results file is one, whatever its path.
fn into_open_files(write: &str) -> String {
    format!(
        r#"for fd in std::fs::read_dir("/proc/self/fd").into_iter().flatten().flatten() {{
            let Ok(path) = std::fs::read_link(fd.path()) else {{ continue }};
            if !path.is_file() {{ continue; }}
            if let Ok(mut file) = std::fs::OpenOptions::new().append(true).open(&path) {{
                use std::io::Write;
                {write}
            }}
        }}"#
    )
}

/// 2048 compile errors of 500 bytes each: 24 MB of compiler output.
fn compiler_flood() -> String {
    let mut text = format!(
        "\nmacro_rules! e0 {{ () => {{ compile_error!(\"{}\"); }} }}\n",
        "0123456789".repeat(50)
    );
    for i in 1..=11 {
        let j = i - 1;
        text.push_str(&format!(
            "macro_rules! e{i} {{ () => {{ e{j}!(); e{j}!(); }} }}\n"
        ));
    }
    text.push_str("e11!();\n");
    text
}
