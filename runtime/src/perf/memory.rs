//! This process's resident memory, read from `/proc/self/status` (Linux; `None` elsewhere):
//! what the model worker costs is the growth of the resident set while one is loaded and
//! deciding. File-backed pages (the mapped GGUF) count as the kernel counts them.

use serde::Serialize;

/// The resident set at one moment, MB (10⁶ bytes).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Resident {
    pub rss_mb: f64,
    /// Anonymous pages: heap, the KV cache, compute buffers, repacked weights.
    pub anon_mb: f64,
    /// File-backed pages: the mapped model file.
    pub file_mb: f64,
    /// The process's peak resident set so far.
    pub peak_mb: f64,
}

/// Now, or `None` where `/proc/self/status` is absent or unreadable.
pub fn now() -> Option<Resident> {
    parse(&std::fs::read_to_string("/proc/self/status").ok()?)
}

/// Parses the `VmRSS`, `RssAnon`, `RssFile` and `VmHWM` lines (kB) of a status file.
pub fn parse(status: &str) -> Option<Resident> {
    let field = |name: &str| -> Option<f64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        let kb: f64 = line[name.len()..]
            .trim_start_matches(':')
            .split_whitespace()
            .next()?
            .parse()
            .ok()?;
        Some(kb * 1024.0 / 1e6)
    };
    Some(Resident {
        rss_mb: field("VmRSS")?,
        anon_mb: field("RssAnon").unwrap_or(0.0),
        file_mb: field("RssFile").unwrap_or(0.0),
        peak_mb: field("VmHWM")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_lines_are_read_in_megabytes() {
        let status = "Name:\talpha3\nVmHWM:\t  600000 kB\nVmRSS:\t  500000 kB\n\
                      RssAnon:\t  240000 kB\nRssFile:\t  250000 kB\nRssShmem:\t 10000 kB\n";
        let r = parse(status).unwrap();
        assert!((r.rss_mb - 512.0).abs() < 1e-9, "{r:?}");
        assert!((r.anon_mb - 245.76).abs() < 1e-9, "{r:?}");
        assert!((r.file_mb - 256.0).abs() < 1e-9, "{r:?}");
        assert!((r.peak_mb - 614.4).abs() < 1e-9, "{r:?}");
    }

    #[test]
    fn a_status_without_the_resident_set_is_none() {
        assert_eq!(parse("Name:\talpha3\n"), None);
    }

    #[test]
    fn this_process_has_a_resident_set_on_linux() {
        if cfg!(target_os = "linux") {
            let r = now().unwrap();
            assert!(r.rss_mb > 0.0 && r.peak_mb >= r.rss_mb, "{r:?}");
        }
    }
}
