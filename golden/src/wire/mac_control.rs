//! MAC Control frames (EtherType 0x8808): the 802.3x PAUSE frame (IEEE
//! 802.3 Annex 31B) and the 802.1Qbb priority flow control frame (IEEE
//! 802.1Q clause 36, its format in IEEE 802.3 Annex 31D). Both start with a
//! 16-bit opcode; a pause time counts quanta of 512 bit times.

use super::field::{header_view, set_u16, u16_at, Error};

/// MAC Control opcodes the parser recognises (IEEE 802.3 Table 31A-1).
pub mod mac_control_opcode {
    /// 802.3x PAUSE: one pause time for the whole link.
    pub const PAUSE: u16 = 0x0001;
    /// 802.1Qbb PFC: a class-enable vector and one pause time per priority.
    pub const PFC: u16 = 0x0101;
}

/// Priorities (traffic classes) a PFC frame addresses.
pub const PFC_PRIORITIES: usize = 8;

/// Where a PFC frame's pause times start: after the opcode and the vector.
const PFC_TIMES_AT: usize = 4;

header_view!(
    /// The opcode every MAC Control frame starts with; the view holds the
    /// parameters after it too.
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
    PfcFrame, PFC_TIMES_AT + 2 * PFC_PRIORITIES, {
        opcode, set_opcode: u16 = u16_at, set_u16 @ 0;
        class_enable, set_class_enable: u16 = u16_at, set_u16 @ 2;
    }
);

impl<T: AsRef<[u8]>> PfcFrame<T> {
    /// The pause time of every priority, priority 0 first.
    pub fn pause_times(&self) -> [u16; PFC_PRIORITIES] {
        std::array::from_fn(|p| u16_at(self.buffer.as_ref(), PFC_TIMES_AT + 2 * p))
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> PfcFrame<T> {
    /// Writes every priority's pause time, priority 0 first.
    pub fn set_pause_times(&mut self, times: [u16; PFC_PRIORITIES]) {
        for (p, time) in times.into_iter().enumerate() {
            set_u16(self.buffer.as_mut(), PFC_TIMES_AT + 2 * p, time);
        }
    }
}

/// A MAC Control frame's body as values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MacControlRepr {
    Pause {
        pause_time: u16,
    },
    Pfc {
        class_enable: u16,
        pause_times: [u16; PFC_PRIORITIES],
    },
    /// Any other opcode (EPON's GATE, REPORT, ...): its parameters are not
    /// read, and none are written.
    Other {
        opcode: u16,
    },
}

impl MacControlRepr {
    pub fn opcode(&self) -> u16 {
        match *self {
            MacControlRepr::Pause { .. } => mac_control_opcode::PAUSE,
            MacControlRepr::Pfc { .. } => mac_control_opcode::PFC,
            MacControlRepr::Other { opcode } => opcode,
        }
    }

    /// The opcode and parameter bytes (without the padding to the minimum
    /// frame).
    pub fn buffer_len(&self) -> usize {
        match self {
            MacControlRepr::Pause { .. } => PauseFrame::<&[u8]>::LEN,
            MacControlRepr::Pfc { .. } => PfcFrame::<&[u8]>::LEN,
            MacControlRepr::Other { .. } => MacControl::<&[u8]>::LEN,
        }
    }

    /// Reads the body after the opcode: `Truncated` when the bytes end
    /// inside a PAUSE or PFC frame's parameters.
    pub fn parse<T: AsRef<[u8]>>(frame: &MacControl<T>) -> Result<Self, Error> {
        let bytes = frame.buffer.as_ref();
        Ok(match frame.opcode() {
            mac_control_opcode::PAUSE => {
                MacControlRepr::Pause { pause_time: PauseFrame::new_checked(bytes)?.pause_time() }
            }
            mac_control_opcode::PFC => {
                let pfc = PfcFrame::new_checked(bytes)?;
                MacControlRepr::Pfc { class_enable: pfc.class_enable(), pause_times: pfc.pause_times() }
            }
            opcode => MacControlRepr::Other { opcode },
        })
    }

    /// Writes the opcode and parameters; the view holds
    /// [`Self::buffer_len`] bytes at least.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, frame: &mut MacControl<T>) {
        frame.set_opcode(self.opcode());
        let bytes = frame.buffer.as_mut();
        match *self {
            MacControlRepr::Pause { pause_time } => PauseFrame::new_unchecked(bytes).set_pause_time(pause_time),
            MacControlRepr::Pfc { class_enable, pause_times } => {
                let mut pfc = PfcFrame::new_unchecked(bytes);
                pfc.set_class_enable(class_enable);
                pfc.set_pause_times(pause_times);
            }
            MacControlRepr::Other { .. } => {}
        }
    }

    /// The opcode and parameter bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = vec![0u8; self.buffer_len()];
        self.emit(&mut MacControl::new_unchecked(&mut bytes[..]));
        bytes
    }
}
