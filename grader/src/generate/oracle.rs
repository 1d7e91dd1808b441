//! The reference solution as the oracle: it runs a draft in the lab's harness, as any
//! scenario runs, and the lab's plug-in turns what it observed after each step into
//! expectations ([`grader_lab::Plugin::fill`]). What comes out is an ordinary scenario
//! file, read and checked as every scenario file is, so a generator that draws an input
//! the lab's checks refuse (one whose outcome would depend on thread timing, say) is
//! caught before any code under test runs.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use grader_lab::Draft;
use grader_protocol::{Event, PROTOCOL_VERSION, Plan, StepRecord};
use serde_json::Value;
use serde_json::value::RawValue;

use super::file::{self, Envelope};
use crate::build::{self, Built};
use crate::error::Error;
use crate::grade::{self, RunOptions};
use crate::lab::Lab;
use crate::run::runner::{self, Ending, Limits};
use crate::scenario::{Scenario, load};

/// The reference solution's harness program, ready to fill drafts in.
pub struct Oracle {
    lab: Lab,
    program: PathBuf,
    opts: RunOptions,
    limits: Limits,
    /// What the reference did on each draft it ran to the end, by the draft's text. The
    /// reference decides every step of a draft the lab's rules decide, so running the
    /// same draft again would observe the same: shrinking the divergences of several
    /// mutants from one seed tries many of the same drafts.
    seen: Mutex<HashMap<String, Vec<StepRecord>>>,
}

/// A draft with its expectations filled in: the file's text and the scenario read from it.
#[derive(Clone, Debug)]
pub struct Filled {
    /// The draft it came from.
    pub draft: Draft,
    /// The steps with their expectations, and which of them the fill added (checks of
    /// what was observed after a step of the draft).
    pub steps: Vec<(Value, bool)>,
    /// The scenario file's text.
    pub text: String,
    /// The scenario, read from `text`.
    pub scenario: Scenario,
}

/// Why the reference could not fill a draft in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused(pub String);

impl Oracle {
    /// Builds the lab's harness against its reference solution (once per lab and
    /// change, like any crate under test). `opts` and `limits` are how it runs.
    pub fn build(
        lab: &Lab,
        opts: &RunOptions,
        limits: Limits,
        progress: &mut dyn Write,
    ) -> Result<Oracle, Error> {
        let subject = grade::solution_subject(lab);
        if !subject.crate_dir.is_dir() {
            return Err(Error::Usage(format!(
                "generated scenarios are filled in by running the reference solution, and this copy of the kit has none ({} is not here): it is the student edition\n  help: the student edition runs the published generated scenarios from labs/{}/{}/",
                lab.manifest.solution_crate,
                lab.manifest.name,
                super::seeds::PRACTICE_DIR
            )));
        }
        let _ = writeln!(
            progress,
            "building {} (the oracle of generated scenarios) ...",
            subject.label
        );
        let work = build::work_dir(lab);
        let program = match build::build_watching(lab, &subject, &work, false, None)? {
            Built::Harness(harness) => harness.main,
            Built::CompileFailed(log) => {
                return Err(Error::KitBuild {
                    what: format!("the reference solution {}", subject.label),
                    log,
                });
            }
        };
        let mut opts = opts.clone();
        // The reference is the kit's own crate: never confined, no backtraces wanted.
        opts.confinement = None;
        opts.backtrace = false;
        Ok(Oracle {
            lab: lab.clone(),
            program,
            opts,
            limits,
            seen: Mutex::new(HashMap::new()),
        })
    }

    /// The lab.
    pub fn lab(&self) -> &Lab {
        &self.lab
    }

    /// The draft of `seed`.
    pub fn draft(&self, seed: u64) -> Result<Draft, Error> {
        draft(&self.lab, seed)
    }

    /// Runs `draft` on the reference and fills in every step's expectations, under
    /// `envelope`; the scenario is read back as the file it would be at `shown` (a path
    /// relative to the kit).
    pub fn fill(
        &self,
        draft: &Draft,
        envelope: &Envelope,
        shown: &Path,
    ) -> Result<Result<Filled, Refused>, Error> {
        // A step the rules leave open ends the scenario before it; the shorter draft is
        // run again, since what is observed after its last step is checked in full.
        let mut draft = draft.clone();
        let records = loop {
            let records = match self.observe(&draft)? {
                Ok(records) => records,
                Err(refused) => return Ok(Err(refused)),
            };
            let open = self
                .lab
                .plugin
                .unpinned(&draft.steps, &records)
                .map_err(|why| {
                    self.broken(format!("the reference's record cannot be read: {why}"))
                })?;
            match open {
                Some(0) => return Ok(Err(Refused("the rules leave its first step open".into()))),
                Some(i) if i < draft.steps.len() => draft.steps.truncate(i),
                _ => break records,
            }
        };
        let draft = &draft;
        let mut steps = Vec::new();
        let mut before: Option<&Value> = None;
        let last = draft.steps.len().saturating_sub(1);
        for (i, step) in draft.steps.iter().enumerate() {
            let record = &records[i];
            let filled = self
                .lab
                .plugin
                .fill(step, record, before, i == last)
                .map_err(|why| {
                    self.broken(format!("the reference's record cannot be read: {why}"))
                })?;
            for (k, s) in filled.into_iter().enumerate() {
                steps.push((s, k > 0));
            }
            before = Some(&record.observation);
        }
        let values: Vec<Value> = steps.iter().map(|(s, _)| s.clone()).collect();
        let text = file::text(envelope, &draft.targets, &values);
        match load::parse(&self.lab, &text, shown) {
            Ok(scenario) => Ok(Ok(Filled {
                draft: draft.clone(),
                steps,
                text,
                scenario,
            })),
            Err(problems) => Ok(Err(Refused(format!(
                "the lab's checks refuse it: {}",
                problems
                    .iter()
                    .map(|d| d.message.clone())
                    .collect::<Vec<_>>()
                    .join("; ")
            )))),
        }
    }

    /// What the reference does on `draft`: each step's record, or why it could not be run
    /// to the end. Only a draft the reference ran to the end is remembered: a refusal may
    /// come from the machine (a stalled run), and is cheap next to the runs that succeed.
    fn observe(&self, draft: &Draft) -> Result<Result<Vec<StepRecord>, Refused>, Error> {
        let key = serde_json::to_string(&(&draft.targets, &draft.steps))
            .map_err(|e| self.broken(format!("a draft cannot be written out: {e}")))?;
        let known = self
            .seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
            .cloned();
        if let Some(records) = known {
            return Ok(Ok(records));
        }
        let records = self.run_draft(draft)?;
        if let Ok(records) = &records {
            let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
            seen.insert(key, records.clone());
        }
        Ok(records)
    }

    /// Runs `draft` on the reference: each step's record, or why it could not be run to
    /// the end (a panic, a stuck request, a crash: the reference never does any of these
    /// on a scenario the lab's rules decide).
    fn run_draft(&self, draft: &Draft) -> Result<Result<Vec<StepRecord>, Refused>, Error> {
        let plan = match plan(&self.lab, draft, &self.opts) {
            Ok(plan) => plan,
            Err(why) => return Ok(Err(Refused(why))),
        };
        let run = runner::run(
            &self.program,
            plan,
            Duration::from_millis(self.opts.timeout_ms),
            self.limits,
            false,
            None,
        )?;
        if let Some(why) = run.unreadable {
            return Ok(Err(Refused(format!("its results cannot be read: {why}"))));
        }
        let mut records: BTreeMap<usize, StepRecord> = BTreeMap::new();
        let mut finished = false;
        for event in run.events {
            match event {
                Event::Step(r) => {
                    records.insert(r.step, r);
                }
                Event::Panic(p) => {
                    let step = p.step.map_or("before any step".to_owned(), |s| {
                        format!("at step {}", s + 1)
                    });
                    return Ok(Err(Refused(format!(
                        "it panicked {step}: {} ({})",
                        p.message,
                        p.location.unwrap_or_default()
                    ))));
                }
                Event::Stuck(s) => {
                    return Ok(Err(Refused(format!(
                        "requests were stuck inside it at step {}",
                        s.step + 1
                    ))));
                }
                Event::Finished => finished = true,
                _ => {}
            }
        }
        if !finished || run.ending != Ending::Exited(0) {
            return Ok(Err(Refused(format!(
                "its process did not finish ({:?})",
                run.ending
            ))));
        }
        let records: Vec<StepRecord> = records.into_values().collect();
        if records.len() != draft.steps.len()
            || records.iter().enumerate().any(|(i, r)| r.step != i)
        {
            return Ok(Err(Refused("a step has no record".to_owned())));
        }
        Ok(Ok(records))
    }

    /// The kit's own fault: the reference, or the lab's plug-in, is broken.
    fn broken(&self, why: String) -> Error {
        Error::BrokenLab {
            lab: self.lab.manifest.name.clone(),
            place: PathBuf::from(&self.lab.manifest.solution_crate),
            why,
        }
    }

    /// The scenario of `seed`, filled in: an error when the reference cannot run it or
    /// the lab's checks refuse it, which is a fault of the generator or of the reference.
    pub fn seed(
        &self,
        seed: u64,
        hidden: bool,
        points: u32,
        category: &str,
    ) -> Result<Filled, Error> {
        let draft = self.draft(seed)?;
        let envelope = super::envelope(&self.lab, seed, hidden, points, category);
        let shown = super::work_folder(&self.lab)
            .join("filled")
            .join(format!("{}.json", envelope.name));
        let key = self.key(&draft, &envelope);
        if let Some(filled) = self.cached(&draft, &shown, &key) {
            return Ok(filled);
        }
        let filled = self.fill(&draft, &envelope, &shown)?.map_err(|Refused(why)| {
            self.broken(format!(
                "the generated scenario of seed {seed} cannot be filled in from the reference: {why}"
            ))
        })?;
        super::write_file(&self.lab, &shown, &filled.text)?;
        super::write_file(&self.lab, &key_path(&shown), &key)?;
        Ok(filled)
    }

    /// What a filled-in file depends on: the draft, its envelope, the reference's harness
    /// program as built (cargo writes a new one when anything it is built from changes:
    /// the reference, the harness, the kit's crates) and the grader that filled it in
    /// (whose plug-ins write the expectations), each known by its path, size and time.
    fn key(&self, draft: &Draft, envelope: &super::file::Envelope) -> String {
        use sha2::{Digest, Sha256};
        let built = |path: &Path| {
            std::fs::metadata(path)
                .ok()
                .map(|m| {
                    let at = m
                        .modified()
                        .ok()
                        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                        .map_or(0, |d| d.as_nanos());
                    format!("{} {} {at}", path.display(), m.len())
                })
                .unwrap_or_default()
        };
        let grader = std::env::current_exe()
            .map(|p| built(&p))
            .unwrap_or_default();
        let text = super::file::text(envelope, &draft.targets, &draft.steps);
        let mut hash = Sha256::new();
        for part in [built(&self.program), grader, text] {
            hash.update(part.as_bytes());
            hash.update([0]);
        }
        crate::report::provenance::hex(&hash.finalize())
    }

    /// The file filled in before for the same key, read as a scenario; `None` when there
    /// is none, or it cannot be read.
    fn cached(&self, draft: &Draft, shown: &Path, key: &str) -> Option<Filled> {
        let path = self.lab.kit.join(shown);
        let saved = std::fs::read_to_string(self.lab.kit.join(key_path(shown))).ok()?;
        if saved != key {
            return None;
        }
        let text = std::fs::read_to_string(&path).ok()?;
        let scenario = load::parse(&self.lab, &text, shown).ok()?;
        let file: Value = serde_json::from_str(&text).ok()?;
        let steps = file["steps"]
            .as_array()?
            .iter()
            .map(|s| (s.clone(), false))
            .collect();
        Some(Filled {
            draft: draft.clone(),
            steps,
            text,
            scenario,
        })
    }
}

/// Where the key of a filled-in file is kept: beside it.
fn key_path(shown: &Path) -> PathBuf {
    shown.with_extension("key")
}

/// The draft of `seed` from the lab's plug-in.
pub fn draft(lab: &Lab, seed: u64) -> Result<Draft, Error> {
    let defaults = crate::scenario::settings::resolve(lab, &BTreeMap::new());
    let name = &lab.manifest.name;
    match lab.plugin.generate(seed, &defaults) {
        Ok(Some(draft)) => Ok(draft),
        Ok(None) => Err(Error::Usage(format!(
            "{name} has no generator of scenarios\n  help: its plug-in does not implement Plugin::generate"
        ))),
        Err(why) => Err(Error::BrokenLab {
            lab: name.clone(),
            place: PathBuf::from(format!("labs/{name}/lab.json")),
            why,
        }),
    }
}

/// The plan of a draft: the lab's targets with the draft's settings, and the action of
/// each step. A step the plug-in cannot read is why not.
fn plan(lab: &Lab, draft: &Draft, opts: &RunOptions) -> Result<Plan, String> {
    let raw: Vec<(String, Box<RawValue>)> = draft
        .targets
        .iter()
        .map(|(name, settings)| {
            serde_json::value::to_raw_value(settings)
                .map(|raw| (name.clone(), raw))
                .map_err(|e| e.to_string())
        })
        .collect::<Result<_, _>>()?;
    let overrides: BTreeMap<String, &RawValue> = raw
        .iter()
        .map(|(name, raw)| (name.clone(), raw.as_ref()))
        .collect();
    let mut actions = Vec::new();
    for step in &draft.steps {
        let parsed = lab
            .plugin
            .parse_step(&step.to_string())
            .map_err(|e| format!("a step cannot be read ({step}): {e}"))?;
        actions.push(lab.plugin.action(&parsed));
    }
    Ok(Plan {
        protocol: PROTOCOL_VERSION,
        results_path: String::new(),
        stuck_after_ms: opts.stuck_after_ms,
        targets: crate::scenario::settings::resolve(lab, &overrides),
        actions,
        race: None,
    })
}
