//! The golden parser on arbitrary frames: no panic, one record per frame.
//! The first input byte's low bit is the MAC error flag.
#![no_main]

use libfuzzer_sys::fuzz_target;
use metaroce_golden::{parse_frame, ParserConfig};

fuzz_target!(|data: &[u8]| {
    let Some((&flags, frame)) = data.split_first() else { return };
    let record = parse_frame(frame, flags & 1 != 0, &ParserConfig::default());
    assert_eq!(record.frame_len as usize, frame.len());
});
