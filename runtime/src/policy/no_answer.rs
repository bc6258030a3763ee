//! A model that never answered in an episode had no say in its flight: the watchdog and the
//! fallback hold flew it. Such an episode is not the model's and must not score as one; it
//! ends as failed (`episode_failed: <why>`), as one whose policy would not build does.
//! [`Answers`] keeps, per episode, whether any call produced a model answer and why not.

/// Why an episode had no answer from the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoAnswer {
    /// The endpoint refused the API key (HTTP 401/403) before the model answered once: no
    /// call with that key will be answered, so the episode ends at once.
    #[error("the model endpoint refused the key: HTTP {status}")]
    KeyRefused { status: u16 },
    /// Every call of the episode failed (an unreachable server, errors); the last failure.
    #[error("the model never answered: {last}")]
    NeverAnswered { last: String },
}

impl NoAnswer {
    /// The input was at fault (the configured key), not the run.
    pub fn is_invalid_input(&self) -> bool {
        matches!(self, Self::KeyRefused { .. })
    }
}

/// What the model's calls gave in the episode being flown.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Answers {
    /// Some call produced a completion (valid or not: the model answered).
    answered: bool,
    /// A refusal of the key before the first answer.
    refused: Option<u16>,
    /// The last failed call's error.
    last_error: Option<String>,
}

impl Answers {
    /// A decision was asked for: until a call says otherwise, nothing came back in time (a
    /// decision cut off at its deadline leaves no error of its own).
    pub fn asked(&mut self) {
        self.last_error
            .get_or_insert_with(|| "no answer by the decision's deadline".into());
    }

    /// A call produced a completion.
    pub fn answered(&mut self) {
        self.answered = true;
    }

    /// A call failed with `error`; `refused_status` when the key was refused.
    pub fn failed(&mut self, error: String, refused_status: Option<u16>) {
        if !self.answered && self.refused.is_none() {
            self.refused = refused_status;
        }
        self.last_error = Some(error);
    }

    /// The key was refused before any answer: the episode ends now.
    pub fn key_refused(&self) -> Option<NoAnswer> {
        self.refused.map(|status| NoAnswer::KeyRefused { status })
    }

    /// Why the episode so far had no answer, if it had none (and asked at least once).
    pub fn no_answer(&self) -> Option<NoAnswer> {
        if self.answered {
            return None;
        }
        self.key_refused().or_else(|| {
            self.last_error
                .clone()
                .map(|last| NoAnswer::NeverAnswered { last })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_answer_is_enough_and_a_refusal_counts_only_before_it() {
        let mut a = Answers::default();
        assert_eq!(a.no_answer(), None, "nothing asked yet");
        a.asked();
        assert_eq!(
            a.no_answer().map(|n| n.to_string()).as_deref(),
            Some("the model never answered: no answer by the decision's deadline")
        );
        a.failed("HTTP 503".into(), None);
        assert_eq!(
            a.no_answer(),
            Some(NoAnswer::NeverAnswered {
                last: "HTTP 503".into()
            })
        );
        a.failed("refused".into(), Some(401));
        assert_eq!(a.key_refused(), Some(NoAnswer::KeyRefused { status: 401 }));
        assert_eq!(
            a.no_answer().map(|n| n.to_string()).as_deref(),
            Some("the model endpoint refused the key: HTTP 401")
        );
        let mut b = Answers::default();
        b.answered();
        b.failed("refused".into(), Some(403));
        assert_eq!((b.key_refused(), b.no_answer()), (None, None));
    }
}
