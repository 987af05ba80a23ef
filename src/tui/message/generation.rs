//! The number each background read of the visitors pane carries (the page, the chart's
//! trend, the period before, the whole range), so a reply to a read no longer wanted is
//! told apart and dropped. One type and one counter for all four.

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
}
