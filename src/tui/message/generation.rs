//! The number each background read of the visitors pane carries (the page, the chart's
//! trend, the period before, the whole range, the feedback, a page's comments) and of
//! the searches pane's lists, so a reply to a read no longer wanted is told apart and
//! dropped. One type and one counter for all of them, and one rule ([`Awaits`]) for
//! whether a reply is to the read still wanted.

/// Which read a reply answers. Only [`Generations::issue`] makes new ones; the default
/// is never handed out, so no reply carrying it is ever taken.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Generation(u64);

/// Hands out generations, each after the last.
#[derive(Debug, Clone, Default)]
pub struct Generations {
    last: u64,
}

impl Generations {
    /// The number of the read about to go out.
    pub fn issue(&mut self) -> Generation {
        self.last += 1;
        Generation(self.last)
    }
}

/// A load that waits for the reply to one read at a time: the number of that read, so
/// that every load checks a reply the same way.
pub trait Awaits {
    /// The number of the read out (or asked about), if one is.
    fn generation(&self) -> Option<Generation>;

    /// Whether a reply numbered `generation` is to the read out. A reply to any other
    /// read, or with none out, is for a read no longer wanted: it is dropped.
    fn awaits(&self, generation: Generation) -> bool {
        self.generation() == Some(generation)
    }
}

#[cfg(test)]
impl Generation {
    /// Generation `n`, for tests that drive a load by hand.
    #[must_use]
    pub const fn test(n: u64) -> Self {
        Self(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_read_gets_a_new_number_and_the_default_is_never_one_of_them() {
        let mut generations = Generations::default();
        let first = generations.issue();
        let second = generations.issue();
        assert_ne!(first, second);
        assert_ne!(first, Generation::default());
        assert_ne!(second, Generation::default());
    }

    struct Out(Option<Generation>);

    impl Awaits for Out {
        fn generation(&self) -> Option<Generation> {
            self.0
        }
    }

    #[test]
    fn only_a_reply_to_the_read_out_is_awaited() {
        let mut generations = Generations::default();
        let (old, new) = (generations.issue(), generations.issue());
        assert!(Out(Some(new)).awaits(new));
        assert!(!Out(Some(new)).awaits(old), "a reply to an earlier read");
        assert!(!Out(None).awaits(new), "no read out");
        assert!(!Out(None).awaits(Generation::default()));
    }
}
