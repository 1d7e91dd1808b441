//! A circuit breaker without a mutex: the whole decision state is one `AtomicU64`, and
//! every change is a compare-and-swap from the value a thread looked at.
//!
//! The word packs the state, the trial mark, the failures in a row and a generation
//! number that moves on every transition, so a swap based on an old look at an earlier
//! period always fails. The opening time lives beside it in a second atomic, written only
//! by the thread that opened the circuit.
//!
//! Records stay in order without a lock around them: a transition sets a `RECORDING` bit
//! in the same swap that changes the state, writes its record, and only then clears the
//! bit. No other transition starts while the bit is set (requests that see it are
//! rejected, late answers ignored), so one breaker's records come out one after the other.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use relay_kit::{BreakerConfig, Clock, Code, State, Transition, TransitionLog};

/// Whether a reply from the target means the target is in trouble.
pub fn counts_as_failure(code: Code) -> bool {
    match code {
        Code::E500 | Code::E901 | Code::E902 => true,
        Code::Ok | Code::B201 | Code::E904 | Code::E905 => false,
    }
}

/// One target's circuit breaker.
pub struct Breaker {
    target: String,
    config: BreakerConfig,
    clock: Arc<dyn Clock>,
    log: TransitionLog,
    word: AtomicU64,
    /// When the circuit last opened, in nanoseconds of clock time. Written only while the
    /// opening thread holds `RECORDING`; read only after seeing OPEN without it.
    opened_at_ns: AtomicU64,
}

const PHASE_MASK: u64 = 0b11;
const CLOSED: u64 = 0;
const OPEN: u64 = 1;
const HALF_OPEN: u64 = 2;
const TRIAL_OUT: u64 = 1 << 2;
const RECORDING: u64 = 1 << 3;
const FAILURES_SHIFT: u32 = 8;
const FAILURES_MASK: u64 = 0xFFFF_FFFF << FAILURES_SHIFT;
const GENERATION_SHIFT: u32 = 40;

/// A copy of the packed word, with readable accessors.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Word(u64);

impl Word {
    fn phase(self) -> u64 {
        self.0 & PHASE_MASK
    }

    fn state(self) -> State {
        match self.phase() {
            OPEN => State::Open,
            HALF_OPEN => State::HalfOpen,
            _ => State::Closed,
        }
    }

    fn has(self, flag: u64) -> bool {
        self.0 & flag != 0
    }

    fn failures(self) -> u32 {
        ((self.0 & FAILURES_MASK) >> FAILURES_SHIFT) as u32
    }

    fn with_failures(self, n: u32) -> Word {
        Word((self.0 & !FAILURES_MASK) | (u64::from(n) << FAILURES_SHIFT))
    }

    fn with_trial(self, out: bool) -> Word {
        if out {
            Word(self.0 | TRIAL_OUT)
        } else {
            Word(self.0 & !TRIAL_OUT)
        }
    }

    /// The word of a transition to `phase`: a new generation, no failures, no trial,
    /// and `RECORDING` set until the record is written.
    fn transition_to(self, phase: u64) -> Word {
        let generation = (self.0 >> GENERATION_SHIFT).wrapping_add(1);
        Word((generation << GENERATION_SHIFT) | RECORDING | phase)
    }
}

/// How an admitted call is treated when its answer comes back.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ticket {
    Ordinary,
    Trial,
}

impl Breaker {
    /// A CLOSED breaker for `target`.
    pub fn new(
        target: impl Into<String>,
        config: BreakerConfig,
        clock: Arc<dyn Clock>,
        log: TransitionLog,
    ) -> Self {
        Self {
            target: target.into(),
            config,
            clock,
            log,
            word: AtomicU64::new(CLOSED),
            opened_at_ns: AtomicU64::new(0),
        }
    }

    /// The current state; reading it changes nothing.
    pub fn state(&self) -> State {
        self.load().state()
    }

    /// Runs `call` if the circuit lets it through, and learns from its answer.
    pub fn call(&self, call: impl FnOnce() -> Code) -> Code {
        let Some(ticket) = self.admit() else {
            return Code::E904;
        };
        let code = call();
        self.settle(ticket, code);
        code
    }

    fn load(&self) -> Word {
        Word(self.word.load(Ordering::Acquire))
    }

    /// Swaps `seen` for `next`; on failure returns what is there now.
    fn swap(&self, seen: Word, next: Word) -> Result<(), Word> {
        self.word
            .compare_exchange(seen.0, next.0, Ordering::AcqRel, Ordering::Acquire)
            .map(|_| ())
            .map_err(Word)
    }

    fn admit(&self) -> Option<Ticket> {
        let mut seen = self.load();
        loop {
            if seen.has(RECORDING) {
                // Another thread is in the middle of a transition: the circuit is just
                // opening, just reopening, just handing out the trial, or the trial is
                // just closing it. In every case a request arriving now gets E904.
                return None;
            }
            match seen.phase() {
                CLOSED => return Some(Ticket::Ordinary),
                OPEN => {
                    let now = self.clock.now();
                    let opened = Duration::from_nanos(self.opened_at_ns.load(Ordering::Acquire));
                    if now.saturating_sub(opened) < self.config.retry_after {
                        return None;
                    }
                    let next = seen.transition_to(HALF_OPEN).with_trial(true);
                    match self.swap(seen, next) {
                        Ok(()) => {
                            self.finish(State::Open, State::HalfOpen, now);
                            return Some(Ticket::Trial);
                        }
                        Err(now_there) => seen = now_there,
                    }
                }
                _ if seen.has(TRIAL_OUT) => return None,
                _ => match self.swap(seen, seen.with_trial(true)) {
                    // A trial that never reached the target was handed back: take it.
                    Ok(()) => return Some(Ticket::Trial),
                    Err(now_there) => seen = now_there,
                },
            }
        }
    }

    fn settle(&self, ticket: Ticket, code: Code) {
        let reached_target = !matches!(code, Code::E904 | Code::E905);
        match ticket {
            Ticket::Trial if !reached_target => self.hand_back_trial(),
            Ticket::Trial => self.end_trial(counts_as_failure(code)),
            Ticket::Ordinary if reached_target => self.learn(counts_as_failure(code)),
            Ticket::Ordinary => {}
        }
    }

    /// The trial is the only call that may change a HALF_OPEN circuit whose trial is
    /// out, so nobody else swaps the word until this thread is done.
    fn end_trial(&self, failed: bool) {
        let now = self.clock.now();
        let (phase, to) = if failed {
            (OPEN, State::Open)
        } else {
            (CLOSED, State::Closed)
        };
        let mut seen = self.load();
        while let Err(now_there) = self.swap(seen, seen.transition_to(phase)) {
            seen = now_there;
        }
        if failed {
            self.opened_at_ns.store(nanos(now), Ordering::Release);
        }
        self.finish(State::HalfOpen, to, now);
    }

    fn hand_back_trial(&self) {
        let mut seen = self.load();
        while seen.has(TRIAL_OUT) {
            match self.swap(seen, seen.with_trial(false)) {
                Ok(()) => return,
                Err(now_there) => seen = now_there,
            }
        }
    }

    /// An ordinary call's answer counts only while the circuit is CLOSED; once it has
    /// opened, the answer is late and changes nothing.
    fn learn(&self, failed: bool) {
        let mut seen = self.load();
        loop {
            if seen.phase() != CLOSED || seen.has(RECORDING) {
                return;
            }
            let failures = if failed { seen.failures() + 1 } else { 0 };
            if failures == seen.failures() {
                return;
            }
            if failures < self.config.failure_threshold {
                match self.swap(seen, seen.with_failures(failures)) {
                    Ok(()) => return,
                    Err(now_there) => seen = now_there,
                }
                continue;
            }
            let now = self.clock.now();
            match self.swap(seen, seen.transition_to(OPEN)) {
                Ok(()) => {
                    self.opened_at_ns.store(nanos(now), Ordering::Release);
                    self.finish(State::Closed, State::Open, now);
                    return;
                }
                Err(now_there) => seen = now_there,
            }
        }
    }

    /// Writes the record of the transition this thread just made, then lets the next
    /// transition start.
    fn finish(&self, from: State, to: State, at: Duration) {
        self.log.record(Transition {
            at,
            target: self.target.clone(),
            from,
            to,
        });
        self.word.fetch_and(!RECORDING, Ordering::Release);
    }
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}
