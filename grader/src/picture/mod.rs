//! The timeline picture of every graded scenario, and the page that shows them.
//!
//! While a grading runs, each scenario's run is kept as a [`Scene`] in an [`Album`]
//! (when [`crate::grade::RunOptions::album`] asks for one): built from what the harness
//! recorded ([`timeline`]: a lane per request on the fake clock's axis, a band per
//! breaker, counts, records as marks, the first step that differs) or, for a race check
//! that broke on a schedule, from that schedule's trace ([`sequence`]: a lane per thread,
//! its locks, waits and calls in the order the explorer ran them). The lab says what its
//! lanes, bands and marks are (`grader_lab::picture`); everything here is the same for
//! every lab.
//!
//! The pictures are SVG written by hand ([`draw`], [`draw_sequence`]), not drawn by
//! plotters as the rehearsal's charts are: a lane picture is rows of bars on an axis that
//! widens the instants where many steps happen at once, each bar a group with its own
//! tooltip and data attributes for the page's tests and filters, and it must survive an
//! HTML sanitizer when embedded in a course platform's output (presentation attributes
//! only, no style sheet, no patterns), none of which plotters' chart model gives. The
//! page itself ([`page`]) is written like the rehearsal's, with [`crate::html`].
//!
//! A hidden scenario's picture shows no more than its text report: nothing for one that
//! passed, and for one that failed only the steps up to the first difference.

pub mod draw;
pub mod draw_sequence;
pub mod embed;
pub mod page;
pub mod sequence;
mod svg;
pub mod timeline;

use std::sync::{Arc, Mutex, PoisonError};

use crate::judge::race::Context;
use crate::report::{ScenarioResult, Status};
use crate::run::runner::Run;
use crate::scenario::{Scenario, Visibility};

pub use crate::html::anchor;
pub use sequence::Sequence;
pub use timeline::Timeline;

/// One scenario's picture.
#[derive(Clone, Debug)]
pub struct Scene {
    /// What was graded, as the report names it (the student crate's folder, say).
    pub subject: String,
    /// The scenario's name.
    pub name: String,
    /// Whether it is a hidden scenario.
    pub hidden: bool,
    /// What is drawn.
    pub picture: Picture,
}

/// What a scene draws.
#[derive(Clone, Debug)]
pub enum Picture {
    /// Lanes of requests on the fake clock.
    Timeline(Box<Timeline>),
    /// The threads of the schedule a race check broke on.
    Sequence(Box<Sequence>),
    /// Nothing, and why (in a sentence).
    Nothing(String),
}

/// The scenes of a grading run (or of several submissions' runs), by what was graded and
/// the scenario's name, as they come from the workers that run the scenarios.
#[derive(Debug, Default)]
pub struct Album {
    scenes: Mutex<Vec<Arc<Scene>>>,
}

impl Album {
    /// An empty album.
    pub fn new() -> Album {
        Album::default()
    }

    fn put(&self, scene: Scene) {
        let mut scenes = self.scenes.lock().unwrap_or_else(PoisonError::into_inner);
        scenes.retain(|s| s.name != scene.name || s.subject != scene.subject);
        scenes.push(Arc::new(scene));
    }

    /// The scene of scenario `name` graded on `subject`, if it ran.
    pub fn scene(&self, subject: &str, name: &str) -> Option<Arc<Scene>> {
        let scenes = self.scenes.lock().unwrap_or_else(PoisonError::into_inner);
        scenes
            .iter()
            .find(|s| s.name == name && s.subject == subject)
            .cloned()
    }

    /// Lets go of the scenes of `subject`, once shown.
    pub fn forget(&self, subject: &str) {
        let mut scenes = self.scenes.lock().unwrap_or_else(PoisonError::into_inner);
        scenes.retain(|s| s.subject != subject);
    }

    /// Keeps the picture of an ordinary scenario's run on `subject`.
    pub fn keep(&self, subject: &str, scenario: &Scenario, run: &Run, result: &ScenarioResult) {
        let hidden = scenario.visibility == Visibility::Hidden;
        let picture = match withheld(hidden, result) {
            Some(why) => Picture::Nothing(why),
            None => timeline::build(scenario, &run.events, result, hidden)
                .map_or_else(Picture::Nothing, |t| Picture::Timeline(Box::new(t))),
        };
        self.put(Scene {
            subject: subject.to_owned(),
            name: scenario.name.clone(),
            hidden,
            picture,
        });
    }

    /// Keeps the picture of a race check's run on `subject`: the schedule it broke on, or
    /// the first schedule's timeline when every schedule passed.
    pub fn keep_race(&self, subject: &str, cx: &Context<'_>, run: &Run, result: &ScenarioResult) {
        let scenario = cx.scenario;
        let hidden = scenario.visibility == Visibility::Hidden;
        let picture = match withheld(hidden, result) {
            Some(why) => Picture::Nothing(why),
            None => sequence::picture(cx, run, result, hidden),
        };
        self.put(Scene {
            subject: subject.to_owned(),
            name: scenario.name.clone(),
            hidden,
            picture,
        });
    }
}

/// Why a hidden scenario's picture is left out, if it is: one that passed shows nothing
/// of its steps in its text report either.
fn withheld(hidden: bool, result: &ScenarioResult) -> Option<String> {
    (hidden && result.status == Status::Passed).then(|| {
        "a hidden scenario that passed: its steps are not shown, as in the text report".into()
    })
}

impl Scene {
    /// The picture as SVG, if there is one.
    pub fn svg(&self) -> Option<String> {
        match &self.picture {
            Picture::Timeline(t) => Some(draw::svg(t)),
            Picture::Sequence(q) => Some(draw_sequence::svg(q)),
            Picture::Nothing(_) => None,
        }
    }
}
