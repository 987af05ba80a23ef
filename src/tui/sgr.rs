//! The 16 colours of the terminal's own palette written in the SGR codes every colour
//! terminal reads (30–37 and 90–97, 40–47 and 100–107). crossterm writes every colour as
//! `38;5;N`, the 256-colour form, which the Linux console and older or minimal terminals
//! do not read, even for the first 16: the `terminal` theme, made of those 16 only, then
//! showed no colour there. Wrapped around the console's output, this rewrites only the
//! parameters `38;5;N` and `48;5;N` with N below 16 inside SGR sequences (`ESC[...m`);
//! everything else passes as it is, even when a sequence arrives cut across two writes.

use std::io::{self, Write};

/// A writer that passes bytes to `inner`, with the first 16 indexed colours rewritten.
pub struct Sgr16<W> {
    inner: W,
    /// A sequence that may still turn out to be a colour to rewrite.
    pending: Vec<u8>,
}

impl<W> Sgr16<W> {
    pub fn new(inner: W) -> Self {
        Self {
            inner,
            pending: Vec::new(),
        }
    }
}

/// What the bytes held so far are.
enum Held {
    /// The start of a colour sequence: wait for more.
    Start,
    /// A whole SGR sequence, its first 16 colours rewritten.
    Colour(Vec<u8>),
    /// Not a colour sequence: pass it on as it is.
    Other,
}

/// Longest SGR sequence held back; a longer one passes as it is.
const MAX_HELD: usize = 64;

fn classify(held: &[u8]) -> Held {
    match held {
        [0x1b] | [0x1b, b'['] => Held::Start,
        [0x1b, b'[', params @ .., last] if held.len() <= MAX_HELD => {
            if !params.iter().all(|b| b.is_ascii_digit() || *b == b';') {
                Held::Other
            } else if last.is_ascii_digit() || *last == b';' {
                Held::Start
            } else if *last == b'm' {
                let params = std::str::from_utf8(params).unwrap_or_default();
                Held::Colour(format!("\x1b[{}m", rewrite(params)).into_bytes())
            } else {
                Held::Other
            }
        }
        _ => Held::Other,
    }
}

/// The parameters of one SGR sequence (such as `38;5;6;49`), with each `38;5;N` and
/// `48;5;N` of N below 16 in its 16-colour code.
fn rewrite(params: &str) -> String {
    let tokens: Vec<&str> = params.split(';').collect();
    let mut out: Vec<String> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let extended = matches!(tokens[i], "38" | "48");
        match (extended, tokens.get(i + 1).copied()) {
            (true, Some("5")) if i + 2 < tokens.len() => {
                let fg = tokens[i] == "38";
                match (fg, tokens[i + 2].parse::<u16>()) {
                    (true, Ok(n @ 0..8)) => out.push((30 + n).to_string()),
                    (true, Ok(n @ 8..16)) => out.push((90 + n - 8).to_string()),
                    (false, Ok(n @ 0..8)) => out.push((40 + n).to_string()),
                    (false, Ok(n @ 8..16)) => out.push((100 + n - 8).to_string()),
                    _ => out.extend(tokens[i..i + 3].iter().map(|t| (*t).to_owned())),
                }
                i += 3;
            }
            (true, Some("2")) => {
                let end = (i + 5).min(tokens.len());
                out.extend(tokens[i..end].iter().map(|t| (*t).to_owned()));
                i = end;
            }
            _ => {
                out.push(tokens[i].to_owned());
                i += 1;
            }
        }
    }
    out.join(";")
}

impl<W: Write> Sgr16<W> {
    fn take(&mut self, byte: u8, out: &mut Vec<u8>) {
        if self.pending.is_empty() && byte != 0x1b {
            out.push(byte);
            return;
        }
        self.pending.push(byte);
        match classify(&self.pending) {
            Held::Start => {}
            Held::Colour(code) => {
                out.extend_from_slice(&code);
                self.pending.clear();
            }
            Held::Other => {
                let held = std::mem::take(&mut self.pending);
                let (last, before) = held.split_last().unwrap_or((&0, &[]));
                out.extend_from_slice(before);
                // The byte that ended the match may start the next sequence.
                if *last == 0x1b && !before.is_empty() {
                    self.pending.push(0x1b);
                } else {
                    out.push(*last);
                }
            }
        }
    }
}

impl<W: Write> Write for Sgr16<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut out = Vec::with_capacity(buf.len());
        for &byte in buf {
            self.take(byte, &mut out);
        }
        self.inner.write_all(&out)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn through(pieces: &[&[u8]]) -> String {
        let mut w = Sgr16::new(Vec::new());
        for piece in pieces {
            w.write_all(piece).unwrap();
        }
        String::from_utf8(w.inner).unwrap()
    }

    #[test]
    fn the_16_colours_are_written_in_16_colour_codes() {
        assert_eq!(through(&[b"\x1b[38;5;1mred"]), "\x1b[31mred");
        assert_eq!(through(&[b"\x1b[38;5;8mgrey"]), "\x1b[90mgrey");
        assert_eq!(through(&[b"\x1b[38;5;14m"]), "\x1b[96m");
        assert_eq!(
            through(&[b"\x1b[48;5;4m\x1b[48;5;15m"]),
            "\x1b[44m\x1b[107m"
        );
    }

    #[test]
    fn colours_among_other_attributes_are_rewritten_too() {
        // crossterm's SetColors writes foreground and background in one sequence.
        assert_eq!(through(&[b"\x1b[38;5;6;49m"]), "\x1b[36;49m");
        assert_eq!(through(&[b"\x1b[1;38;5;9;48;5;0m"]), "\x1b[1;91;40m");
        assert_eq!(
            through(&[b"\x1b[38;2;1;2;3;48;5;3m"]),
            "\x1b[38;2;1;2;3;43m"
        );
    }

    #[test]
    fn other_sequences_and_colours_pass_as_they_are() {
        for same in [
            "\x1b[38;5;208mx",
            "\x1b[38;2;1;2;3m",
            "\x1b[39m\x1b[1m\x1b[?25h",
            "\x1b[2J\x1b[5;10H",
            "plain text",
            "\x1b\x1b[38;5;300m",
        ] {
            assert_eq!(through(&[same.as_bytes()]), same);
        }
    }

    #[test]
    fn a_sequence_cut_across_writes_is_still_read() {
        assert_eq!(through(&[b"a\x1b[3", b"8;5;", b"2m", b"b"]), "a\x1b[32mb");
        assert_eq!(through(&[b"\x1b[", b"1m"]), "\x1b[1m");
        assert_eq!(through(&[b"\x1b[38;5;1", b"2", b"m"]), "\x1b[94m");
    }
}
