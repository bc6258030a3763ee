//! The log filter the binary installs. llama.cpp's own lines (model-load notes such as
//! "control-looking token … this is probably a bug in the model", "using full-size SWA cache")
//! come through `llama-cpp-2` at llama.cpp's own levels, mostly WARN; they are about the model
//! file, not about the flight, so they are shown only when debug logs are asked for (issue 31),
//! unless the filter names `llama-cpp-2` itself.

/// The tracing target llama-cpp-2 logs llama.cpp and ggml under.
pub const LLAMA_TARGET: &str = "llama-cpp-2";

/// `spec` (tracing env-filter syntax: `--log` or `RUST_LOG`) with llama.cpp's lines off unless
/// debug or trace logs are asked for anywhere in it.
pub fn log_filter(spec: &str) -> String {
    if spec.contains(LLAMA_TARGET) {
        return spec.to_string();
    }
    let verbose = spec
        .split(',')
        .filter_map(|d| d.rsplit('=').next())
        .any(|level| {
            let level = level.trim().to_ascii_lowercase();
            level == "debug" || level == "trace"
        });
    let llama = if verbose { "trace" } else { "off" };
    if spec.trim().is_empty() {
        format!("{LLAMA_TARGET}={llama}")
    } else {
        format!("{spec},{LLAMA_TARGET}={llama}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llama_lines_are_off_unless_debug_is_asked_for() {
        assert_eq!(log_filter("warn"), "warn,llama-cpp-2=off");
        assert_eq!(log_filter("alpha3=info"), "alpha3=info,llama-cpp-2=off");
        assert_eq!(log_filter("debug"), "debug,llama-cpp-2=trace");
        assert_eq!(
            log_filter("warn,alpha3=trace"),
            "warn,alpha3=trace,llama-cpp-2=trace"
        );
        assert_eq!(log_filter(""), "llama-cpp-2=off");
        // Named by the user: theirs.
        assert_eq!(log_filter("llama-cpp-2=warn"), "llama-cpp-2=warn");
    }

    #[test]
    fn the_filter_parses() {
        for spec in ["warn", "debug", "alpha3=info,hil=debug", ""] {
            let f = log_filter(spec);
            assert!(
                tracing_subscriber::EnvFilter::try_new(&f).is_ok(),
                "{f} does not parse"
            );
        }
    }
}
