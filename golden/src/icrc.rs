//! CRC-32 (IEEE 802.3 / zlib) and the RoCEv2 invariant CRC.
//!
//! ICRC rule (`../shared/REFERENCE.md`, Linux rxe `rxe_icrc.c`): CRC-32 over
//! eight 0xFF bytes (standing in for the IB LRH), then the IP header, UDP
//! header, BTH, extension headers, payload and pad, with the variant fields
//! set to all ones first. Sent least significant byte first.

use crate::wire::{UdpRepr, BTH_FECN_BECN_OFFSET, UDP_CHECKSUM_OFFSET};

/// Reflected CRC-32 polynomial 0x04C11DB7.
pub const CRC32_POLY_REFLECTED: u32 = 0xEDB8_8320;
pub const CRC32_INIT: u32 = 0xFFFF_FFFF;
/// Register value after CRC-32 runs over a message followed by its own CRC
/// (least significant byte first): the check the RTL makes at frame end.
pub const CRC32_RESIDUE: u32 = 0xDEBB_20E3;

const fn make_table() -> [u32; 256] {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { (c >> 1) ^ CRC32_POLY_REFLECTED } else { c >> 1 };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
}
static TABLE: [u32; 256] = make_table();

/// Advances a CRC-32 register (no final XOR) over one byte.
#[inline]
pub fn crc32_update_byte(register: u32, byte: u8) -> u32 {
    TABLE[((register ^ byte as u32) & 0xFF) as usize] ^ (register >> 8)
}

/// Advances a CRC-32 register (no final XOR) over `bytes`.
pub fn crc32_update(register: u32, bytes: &[u8]) -> u32 {
    bytes.iter().fold(register, |r, &b| crc32_update_byte(r, b))
}

/// The standard CRC-32 of `bytes` (init all ones, final XOR all ones).
pub fn crc32(bytes: &[u8]) -> u32 {
    !crc32_update(CRC32_INIT, bytes)
}

/// Which IP header the covered bytes start with; decides the variant fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IcrcIp {
    V4,
    V6,
}

/// Whether byte `i` of the covered region (counted from the IP header) is a
/// variant field, and so counted as all ones; returns the OR mask.
pub fn variant_mask(ip: IcrcIp, ip_header_len: usize, i: usize) -> u8 {
    let udp_checksum = ip_header_len + UDP_CHECKSUM_OFFSET..ip_header_len + UDP_CHECKSUM_OFFSET + 2;
    let bth_fecn_becn = ip_header_len + UdpRepr::LEN + BTH_FECN_BECN_OFFSET;
    if udp_checksum.contains(&i) || i == bth_fecn_becn {
        return 0xFF;
    }
    match (ip, i) {
        // IPv4: TOS (1), TTL (8), header checksum (10, 11).
        (IcrcIp::V4, 1 | 8 | 10 | 11) => 0xFF,
        // IPv6: the traffic class starts in the low nibble of byte 0 and
        // the flow label ends at byte 3; hop limit is byte 7.
        (IcrcIp::V6, 0) => 0x0F,
        (IcrcIp::V6, 1..=3 | 7) => 0xFF,
        _ => 0x00,
    }
}

/// The ICRC of a RoCEv2 packet. `covered` runs from the first byte of the
/// IP header to the last byte before the ICRC; `ip_header_len` is 20..60
/// for IPv4 and 40 for IPv6. Returns the CRC value; on the wire it is
/// `value.to_le_bytes()`.
pub fn icrc(covered: &[u8], ip: IcrcIp, ip_header_len: usize) -> u32 {
    // Every variant field lies in the headers, up to the BTH's byte 4. A
    // copy of the first bytes (all of a short packet) takes the masks; one
    // CRC runs over the copy and over the rest as it is, at memory speed.
    let copied = covered.len().min(COPIED);
    let mut head = [0u8; COPIED];
    let head = &mut head[..copied];
    head.copy_from_slice(&covered[..copied]);
    let mut set = |i: usize, mask: u8| {
        if let Some(byte) = head.get_mut(i) {
            *byte |= mask;
        }
    };
    match ip {
        IcrcIp::V4 => [1, 8, 10, 11].into_iter().for_each(|i| set(i, 0xFF)),
        IcrcIp::V6 => {
            set(0, 0x0F);
            [1, 2, 3, 7].into_iter().for_each(|i| set(i, 0xFF));
        }
    }
    let udp_checksum = ip_header_len + UDP_CHECKSUM_OFFSET;
    for i in [udp_checksum, udp_checksum + 1, ip_header_len + UdpRepr::LEN + BTH_FECN_BECN_OFFSET] {
        set(i, 0xFF);
    }
    // The register after the eight 0xFF bytes of the LRH stand-in is the
    // residue value (see the test `lrh_stand_in_state_equals_residue`).
    let mut crc = crc32fast::Hasher::new_with_initial(!CRC32_RESIDUE);
    crc.update(head);
    crc.update(&covered[copied..]);
    crc.finalize()
}

/// Bytes copied to take the masks: at least as far as they reach (the
/// longest IPv4 header, UDP, the BTH up to its FECN/BECN byte), and the
/// whole of a short packet, which then needs one CRC pass only.
const COPIED: usize = 128;
const _: () = assert!(COPIED > 60 + UdpRepr::LEN + BTH_FECN_BECN_OFFSET);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_check_value() {
        // The catalogue check value of CRC-32/ISO-HDLC.
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn residue_of_message_and_its_crc() {
        let msg = b"metaroce residue";
        let mut framed = msg.to_vec();
        framed.extend_from_slice(&crc32(msg).to_le_bytes());
        assert_eq!(crc32_update(CRC32_INIT, &framed), CRC32_RESIDUE);
    }

    #[test]
    fn icrc_equals_the_byte_by_byte_definition() {
        let covered: Vec<u8> = (0..300u32).map(|i| (i * 37 + 11) as u8).collect();
        for (ip, header_len) in [(IcrcIp::V4, 20), (IcrcIp::V4, 60), (IcrcIp::V6, 40)] {
            for len in [header_len + 20, header_len + 21, 200, 300] {
                let bytes = &covered[..len];
                let definition = !bytes.iter().enumerate().fold(crc32_update(CRC32_INIT, &[0xFF; 8]), |r, (i, &b)| {
                    crc32_update_byte(r, b | variant_mask(ip, header_len, i))
                });
                assert_eq!(icrc(bytes, ip, header_len), definition, "{ip:?} {header_len} {len}");
            }
        }
    }

    #[test]
    fn lrh_stand_in_state_equals_residue() {
        // The RTL relies on this: eight 0xFF bytes leave the register at the
        // residue value, so one table serves injection and check.
        assert_eq!(crc32_update(CRC32_INIT, &[0xFF; 8]), CRC32_RESIDUE);
    }
}
