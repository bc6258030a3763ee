//! A one-line progress bar on stderr — done/total, rate, ETA, completed missions — redrawn at
//! most ten times a second. Silent when stderr is not a terminal (CI logs, tests), so logs are
//! not flooded with carriage returns; the command prints a summary line at the end either way.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

const WIDTH: usize = 30;

#[derive(Debug)]
pub struct Progress {
    total: usize,
    done: usize,
    completed_missions: usize,
    started: Instant,
    last_draw: Option<Instant>,
    enabled: bool,
}

impl Progress {
    /// A bar for `total` episodes to fly (skipped ones are not counted).
    pub fn new(total: usize) -> Self {
        Self::with_output(total, std::io::stderr().is_terminal())
    }

    pub fn with_output(total: usize, enabled: bool) -> Self {
        Self {
            total,
            done: 0,
            completed_missions: 0,
            started: Instant::now(),
            last_draw: None,
            enabled,
        }
    }

    /// One more episode finished.
    pub fn tick(&mut self, mission_complete: bool) {
        self.done += 1;
        self.completed_missions += usize::from(mission_complete);
        let now = Instant::now();
        let due = self
            .last_draw
            .is_none_or(|t| now.duration_since(t) >= Duration::from_millis(100));
        if self.enabled && (due || self.done == self.total) {
            self.last_draw = Some(now);
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r{}", self.line());
            let _ = err.flush();
        }
    }

    /// Ends the bar's line.
    pub fn finish(&self) {
        if self.enabled && self.last_draw.is_some() {
            eprintln!();
        }
    }

    /// The bar's text: `[#####.....] 12/50  3.2 ep/s  ETA 0:12  missions 11/12`.
    pub fn line(&self) -> String {
        let frac = if self.total == 0 {
            1.0
        } else {
            self.done as f64 / self.total as f64
        };
        let filled = ((frac * WIDTH as f64).round() as usize).min(WIDTH);
        let secs = self.started.elapsed().as_secs_f64();
        let rate = if secs > 0.0 {
            self.done as f64 / secs
        } else {
            0.0
        };
        let eta = if rate > 0.0 {
            let left = (self.total - self.done.min(self.total)) as f64 / rate;
            format!("{}:{:02}", (left / 60.0) as u64, (left % 60.0) as u64)
        } else {
            "–".into()
        };
        format!(
            "[{}{}] {}/{}  {:.1} ep/s  ETA {}  missions {}/{}",
            "#".repeat(filled),
            ".".repeat(WIDTH - filled),
            self.done,
            self.total,
            rate,
            eta,
            self.completed_missions,
            self.done
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_fills_with_progress() {
        let mut p = Progress::with_output(4, false);
        assert!(
            p.line()
                .starts_with(&format!("[{}] 0/4", ".".repeat(WIDTH)))
        );
        p.tick(true);
        p.tick(false);
        let line = p.line();
        assert!(line.contains("2/4"), "{line}");
        assert!(line.contains("missions 1/2"), "{line}");
        assert!(
            line.starts_with(&format!("[{}", "#".repeat(WIDTH / 2))),
            "{line}"
        );
    }
}
