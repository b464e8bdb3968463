//! MAC Control frames (EtherType 0x8808): the 802.3x PAUSE frame (IEEE
//! 802.3 Annex 31B) and the 802.1Qbb priority flow control frame (IEEE
//! 802.1Q clause 36, its format in IEEE 802.3 Annex 31D). Both start with a
//! 16-bit opcode; a pause time counts quanta of 512 bit times.

use super::field::{header_view, Error};

/// MAC Control opcodes the parser recognises (IEEE 802.3 Table 31A-1).
pub mod mac_control_opcode {
    /// 802.3x PAUSE: one pause time for the whole link.
    pub const PAUSE: u16 = 0x0001;
    /// 802.1Qbb PFC: a class-enable vector and one pause time per priority.
    pub const PFC: u16 = 0x0101;
}

/// Priorities (traffic classes) a PFC frame addresses.
pub const PFC_PRIORITIES: usize = 8;

header_view!(
    /// The opcode every MAC Control frame starts with.
    MacControl, 2, {
        opcode, set_opcode: u16 = u16_at, set_u16 @ 0;
    }
);

header_view!(
    /// An 802.3x PAUSE frame's opcode and its one pause time.
    PauseFrame, 4, {
        opcode, set_opcode: u16 = u16_at, set_u16 @ 0;
        pause_time, set_pause_time: u16 = u16_at, set_u16 @ 2;
    }
);

header_view!(
    /// An 802.1Qbb PFC frame: the opcode, the class-enable vector (bit p
    /// enables priority p; the top byte is reserved) and eight pause
    /// times, priority 0 first.
    PfcFrame, 4 + 2 * PFC_PRIORITIES, {
        opcode, set_opcode: u16 = u16_at, set_u16 @ 0;
        class_enable, set_class_enable: u16 = u16_at, set_u16 @ 2;
    }
);

impl<T: AsRef<[u8]>> PfcFrame<T> {
    /// The pause time of every priority, priority 0 first.
    pub fn pause_times(&self) -> [u16; PFC_PRIORITIES] {
        std::array::from_fn(|p| super::field::u16_at(self.buffer.as_ref(), 4 + 2 * p))
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> PfcFrame<T> {
    pub fn set_pause_times(&mut self, times: [u16; PFC_PRIORITIES]) {
        for (p, time) in times.into_iter().enumerate() {
            super::field::set_u16(self.buffer.as_mut(), 4 + 2 * p, time);
        }
    }
}

/// A PAUSE or PFC frame's MAC Control body as values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MacControlRepr {
    Pause { pause_time: u16 },
    Pfc { class_enable: u16, pause_times: [u16; PFC_PRIORITIES] },
}

impl MacControlRepr {
    /// The opcode and parameter bytes (without the padding to the minimum
    /// frame).
    pub fn buffer_len(&self) -> usize {
        match self {
            MacControlRepr::Pause { .. } => PauseFrame::<&[u8]>::LEN,
            MacControlRepr::Pfc { .. } => PfcFrame::<&[u8]>::LEN,
        }
    }

    /// Reads a PAUSE or PFC body: `Truncated` when the bytes end inside
    /// it, `Malformed` for any other opcode.
    pub fn parse(bytes: &[u8]) -> Result<Self, Error> {
        match MacControl::new_checked(bytes)?.opcode() {
            mac_control_opcode::PAUSE => {
                Ok(MacControlRepr::Pause { pause_time: PauseFrame::new_checked(bytes)?.pause_time() })
            }
            mac_control_opcode::PFC => {
                let pfc = PfcFrame::new_checked(bytes)?;
                Ok(MacControlRepr::Pfc { class_enable: pfc.class_enable(), pause_times: pfc.pause_times() })
            }
            _ => Err(Error::Malformed),
        }
    }

    /// The opcode and parameter bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = vec![0u8; self.buffer_len()];
        match *self {
            MacControlRepr::Pause { pause_time } => {
                let mut view = PauseFrame::new_unchecked(&mut bytes[..]);
                view.set_opcode(mac_control_opcode::PAUSE);
                view.set_pause_time(pause_time);
            }
            MacControlRepr::Pfc { class_enable, pause_times } => {
                let mut view = PfcFrame::new_unchecked(&mut bytes[..]);
                view.set_opcode(mac_control_opcode::PFC);
                view.set_class_enable(class_enable);
                view.set_pause_times(pause_times);
            }
        }
        bytes
    }
}
