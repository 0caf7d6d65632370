//! What `rocesim run` shows while it runs. On a terminal: a bar toward the
//! target (the scenario's `stop`, else every flow completed) with the
//! simulated time, flows done, events per second and an ETA. Elsewhere (batch
//! jobs, CI logs, Slurm), where a bar would draw nothing: a plain line every
//! few seconds with the same numbers. Short runs print nothing.

use crate::sim::RunProgress;
use crate::sim::limits::{human_time, human_wall};
use crate::units::SimTime;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// How often a plain progress line is printed by default.
pub const PLAIN_EVERY: Duration = Duration::from_secs(5);

/// Positions of the bar (fraction of the target, in thousandths).
const SCALE: u64 = 1000;

pub struct RunDisplay {
    name: String,
    /// The scenario's stop time: the target when given.
    stop: Option<SimTime>,
    bar: Option<ProgressBar>,
    /// Plain lines this often (stderr is not a terminal), or none.
    plain: Option<Duration>,
    started: Instant,
    last_line: Instant,
    /// Events and wall time at the last report (for events per second).
    last: (u64, Instant),
    rate: f64,
}

impl RunDisplay {
    /// A display for run `name`: none with `quiet`; a bar on a terminal;
    /// else a plain line every `every`.
    pub fn new(name: &str, stop: Option<SimTime>, quiet: bool, every: Duration) -> RunDisplay {
        let terminal = std::io::stderr().is_terminal();
        Self::with_terminal(name, stop, quiet, every, terminal)
    }

    /// As [`RunDisplay::new`], saying whether stderr is a terminal.
    fn with_terminal(
        name: &str,
        stop: Option<SimTime>,
        quiet: bool,
        every: Duration,
        terminal: bool,
    ) -> RunDisplay {
        let now = Instant::now();
        let bar = (!quiet && terminal).then(|| {
            let bar = ProgressBar::new(SCALE);
            let style = ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {msg}, ETA {eta}",
            )
            .expect("valid template");
            bar.set_style(style);
            bar
        });
        RunDisplay {
            name: name.to_string(),
            stop,
            bar,
            plain: (!quiet && !terminal).then_some(every),
            started: now,
            last_line: now,
            last: (0, now),
            rate: 0.0,
        }
    }

    /// The share of the target reached: simulated time of `stop`, else flows.
    fn fraction(&self, p: &RunProgress) -> f64 {
        match self.stop {
            Some(s) if s.ps() > 0 => p.now.ps() as f64 / s.ps() as f64,
            _ if p.total > 0 => p.done as f64 / p.total as f64,
            _ => 0.0,
        }
        .clamp(0.0, 1.0)
    }

    /// The numbers of a report: `sim 1.2ms of 10ms, flows 5/8, 12.3 M events/s`.
    fn numbers(&self, p: &RunProgress) -> String {
        let target = match self.stop {
            Some(s) => format!(" of {}", human_time(s.ps())),
            None => String::new(),
        };
        format!(
            "sim {}{target}, flows {}/{}, {:.2} M events/s",
            human_time(p.now.ps()),
            p.done,
            p.total,
            self.rate / 1e6
        )
    }

    pub fn update(&mut self, p: RunProgress) {
        let now = Instant::now();
        let dt = now.duration_since(self.last.1).as_secs_f64();
        // Over half a second or more; the first report over whatever it took
        // (a short --progress-every showed 0 events/s).
        if dt > 0.5 || (self.rate == 0.0 && dt > 0.0) {
            self.rate = p.events.saturating_sub(self.last.0) as f64 / dt;
            self.last = (p.events, now);
        }
        let f = self.fraction(&p);
        if let Some(bar) = &self.bar {
            bar.set_position((f * SCALE as f64) as u64);
            bar.set_message(self.numbers(&p));
        }
        if let Some(every) = self.plain
            && now.duration_since(self.last_line) >= every
        {
            self.last_line = now;
            let elapsed = now.duration_since(self.started);
            let eta = eta(elapsed, f);
            // Not eprintln!: a closed stderr must not panic the run.
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "rocesim: {}: {} after {}, {:.0} % of the target, ETA {eta}",
                self.name,
                self.numbers(&p),
                human_wall(elapsed),
                f * 100.0
            );
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// The wall time left when `elapsed` took the run to `f` of its target, at
/// the same pace.
fn eta(elapsed: Duration, f: f64) -> String {
    match f > 0.0 {
        true => human_wall(elapsed.mul_f64((1.0 - f) / f)),
        false => "unknown".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Delta;

    fn at(ms: u64, done: usize) -> RunProgress {
        RunProgress {
            now: SimTime(Delta::from_ms(ms).ps()),
            done,
            total: 8,
            events: 1_000_000,
        }
    }

    #[test]
    fn on_a_terminal_the_bar_moves_toward_the_stop_time_and_shows_the_numbers() {
        let stop = Some(SimTime(Delta::from_ms(10).ps()));
        let mut d = RunDisplay::with_terminal("x", stop, false, PLAIN_EVERY, true);
        assert!(
            d.plain.is_none(),
            "a terminal gets the bar, not plain lines"
        );
        d.update(at(4, 3));
        let bar = d.bar.as_ref().expect("a bar on a terminal");
        assert_eq!(bar.position(), 400, "4 ms of 10 ms");
        assert!(
            bar.message().starts_with("sim 4ms of 10ms, flows 3/8, "),
            "{}",
            bar.message()
        );
        // indicatif's {eta} in the template estimates from the bar's pace
        // toward its length.
        assert_eq!(bar.length(), Some(SCALE));
    }

    #[test]
    fn without_a_stop_the_target_is_every_flow_completed() {
        let mut d = RunDisplay::with_terminal("x", None, false, PLAIN_EVERY, true);
        d.update(at(4, 2));
        assert_eq!(d.bar.as_ref().unwrap().position(), 250, "2 of 8 flows");
    }

    #[test]
    fn off_a_terminal_plain_lines_and_quiet_nothing() {
        let d = RunDisplay::with_terminal("x", None, false, PLAIN_EVERY, false);
        assert!(d.bar.is_none());
        assert_eq!(d.plain, Some(PLAIN_EVERY));
        let q = RunDisplay::with_terminal("x", None, true, PLAIN_EVERY, true);
        assert!(q.bar.is_none() && q.plain.is_none());
    }

    #[test]
    fn the_eta_is_the_time_left_at_the_same_pace() {
        assert_eq!(eta(Duration::from_secs(10), 0.25), "30s");
        assert_eq!(eta(Duration::from_secs(90), 0.5), "1.5min");
        assert_eq!(eta(Duration::from_secs(3), 0.0), "unknown");
    }
}
