//! The pcap/pcapng reader on arbitrary bytes: no panic, and memory bounded
//! by the reader's buffer whatever a record claims (a 4 GB caplen, say).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use metaroce_cosim::capture::{CaptureReader, Frame};

fuzz_target!(|data: &[u8]| {
    let Ok(mut reader) = CaptureReader::from_bytes(Path::new("fuzz"), data.to_vec()) else {
        return;
    };
    let mut frame = Frame::default();
    while let Ok(true) = reader.read_next(&mut frame) {}
});
