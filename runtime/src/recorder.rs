//! The flight recorder: appends [`RecordLine`]s to a JSON Lines file, flushed to disk at every
//! turn, so a crash loses at most the turn in progress. A record reopened after a crash drops its
//! torn last line and continues the sequence; nothing earlier is lost or written twice.

use alpha3_core::record::{
    Event, ParsedRecord, RECORD_VERSION, RecordError, RecordLine, parse_record, to_json_line,
};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum RecorderError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Record {
        path: PathBuf,
        #[source]
        source: RecordError,
    },
    #[error("{0}: a record already exists here")]
    Exists(PathBuf),
}

/// Writes one episode's record.
#[derive(Debug)]
pub struct Recorder {
    path: PathBuf,
    out: BufWriter<File>,
    next_seq: u64,
    /// Whether [`Recorder::flush`] also waits for the disk (see [`Recorder::without_sync`]).
    sync: bool,
}

impl Recorder {
    /// Starts a new record; refuses to overwrite one.
    pub fn create(path: &Path) -> Result<Self, RecorderError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| io(path, e))?;
        }
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| {
                if e.kind() == std::io::ErrorKind::AlreadyExists {
                    RecorderError::Exists(path.to_path_buf())
                } else {
                    io(path, e)
                }
            })?;
        Ok(Self {
            path: path.to_path_buf(),
            out: BufWriter::new(file),
            next_seq: 0,
            sync: true,
        })
    }

    /// Reopens a record after a crash: a torn last line is cut off (the file is truncated to its
    /// last whole line) and appending continues after the last good sequence number.
    pub fn resume(path: &Path) -> Result<(Self, ParsedRecord), RecorderError> {
        let text = std::fs::read_to_string(path).map_err(|e| io(path, e))?;
        let parsed = parse_record(&text).map_err(|source| RecorderError::Record {
            path: path.to_path_buf(),
            source,
        })?;
        let keep = if parsed.torn_tail {
            text.rfind('\n').map_or(0, |i| i + 1)
        } else {
            text.len()
        };
        let file = OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| io(path, e))?;
        file.set_len(keep as u64).map_err(|e| io(path, e))?;
        let mut out = BufWriter::new(file);
        use std::io::Seek;
        out.seek(std::io::SeekFrom::End(0))
            .map_err(|e| io(path, e))?;
        let next_seq = parsed.lines.len() as u64;
        Ok((
            Self {
                path: path.to_path_buf(),
                out,
                next_seq,
                sync: true,
            },
            parsed,
        ))
    }

    /// Makes [`Recorder::flush`] hand lines to the OS without waiting for the disk: for records
    /// that are worthless until complete anyway — `bench` writes `<id>.jsonl.part` and flies a
    /// torn one again from scratch — where a per-turn `fsync` only costs time (it dominated the
    /// wall time of a scripted corpus run).
    pub fn without_sync(mut self) -> Self {
        self.sync = false;
        self
    }

    /// Appends one event at `t_ms` (buffered until [`Recorder::flush`]); returns its sequence
    /// number.
    pub fn append(&mut self, t_ms: u64, event: Event) -> Result<u64, RecorderError> {
        let seq = self.next_seq;
        let line = RecordLine {
            v: RECORD_VERSION,
            seq,
            t_ms,
            event,
        };
        self.out
            .write_all(to_json_line(&line).as_bytes())
            .map_err(|e| io(&self.path, e))?;
        self.next_seq += 1;
        Ok(seq)
    }

    /// Pushes everything appended so far to the disk (called at the end of every turn).
    pub fn flush(&mut self) -> Result<(), RecorderError> {
        self.out.flush().map_err(|e| io(&self.path, e))?;
        if !self.sync {
            return Ok(());
        }
        self.out
            .get_ref()
            .sync_data()
            .map_err(|e| io(&self.path, e))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Lines written so far (including those found on resume).
    pub fn len(&self) -> u64 {
        self.next_seq
    }

    pub fn is_empty(&self) -> bool {
        self.next_seq == 0
    }
}

fn io(path: &Path, source: std::io::Error) -> RecorderError {
    RecorderError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Reads a whole record from disk.
pub fn read_record(path: &Path) -> Result<ParsedRecord, RecorderError> {
    let text = std::fs::read_to_string(path).map_err(|e| io(path, e))?;
    parse_record(&text).map_err(|source| RecorderError::Record {
        path: path.to_path_buf(),
        source,
    })
}

/// Whether the record at `path` ended (has its termination event), so a rerun can skip it.
pub fn is_complete(path: &Path) -> bool {
    read_record(path).is_ok_and(|r| {
        r.lines
            .iter()
            .any(|l| matches!(l.event, Event::Termination { .. }))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn watchdog(i: u64) -> Event {
        Event::Watchdog {
            action: "hold".into(),
            reason: format!("tick {i}"),
        }
    }

    #[test]
    fn writes_flushes_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("records/ep.jsonl");
        let mut r = Recorder::create(&path).unwrap();
        for i in 0..3 {
            assert_eq!(r.append(i * 10, watchdog(i)).unwrap(), i);
        }
        r.flush().unwrap();
        assert!(!is_complete(&path));
        r.append(
            40,
            Event::Termination {
                reason: "mission_complete".into(),
                success: true,
                turns: 8,
            },
        )
        .unwrap();
        r.flush().unwrap();
        let back = read_record(&path).unwrap();
        assert_eq!(back.lines.len(), 4);
        assert!(is_complete(&path));
        assert!(matches!(
            Recorder::create(&path),
            Err(RecorderError::Exists(_))
        ));
    }

    #[test]
    fn a_torn_tail_is_cut_and_the_sequence_continues_without_duplicates() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ep.jsonl");
        let mut r = Recorder::create(&path).unwrap();
        for i in 0..3 {
            r.append(i, watchdog(i)).unwrap();
        }
        r.flush().unwrap();
        drop(r);
        // A crash in the middle of writing line 4.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(br#"{"v":1,"seq":3,"t_ms":3,"event":"watch"#)
            .unwrap();
        drop(f);

        let (mut r, parsed) = Recorder::resume(&path).unwrap();
        assert!(parsed.torn_tail);
        assert_eq!(parsed.lines.len(), 3);
        assert_eq!(r.append(3, watchdog(3)).unwrap(), 3);
        r.flush().unwrap();
        let back = read_record(&path).unwrap();
        assert!(!back.torn_tail);
        let seqs: Vec<u64> = back.lines.iter().map(|l| l.seq).collect();
        assert_eq!(seqs, vec![0, 1, 2, 3]);
    }
}
