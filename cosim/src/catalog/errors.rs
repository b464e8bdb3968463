//! One capture per parse error class.

use metaroce_golden::frame::mac_control_frame;
use metaroce_golden::wire::{ethertype, MacControlRepr, PFC_PRIORITIES};
use metaroce_golden::ParseError;

use super::entry::{roce, Capture};
use crate::addresses::host_mac;
use crate::capture::GenFrame;
use crate::stimuli::{fix_ipv4_checksum, RoceFrame, L3};

/// Edits the frame and then recomputes the IPv4 header checksum.
fn edit_ipv4(f: &RoceFrame, edit: impl FnOnce(&mut Vec<u8>, usize)) -> Vec<u8> {
    let mut bytes = f.build();
    let l3 = f.l3_offset();
    edit(&mut bytes, l3);
    fix_ipv4_checksum(&mut bytes, l3);
    bytes
}

fn set_u16(bytes: &mut [u8], at: usize, value: u16) {
    bytes[at..at + 2].copy_from_slice(&value.to_be_bytes());
}

fn cut(mut bytes: Vec<u8>, len: usize) -> Vec<u8> {
    bytes.truncate(len);
    bytes
}

pub(super) fn captures() -> Vec<Capture> {
    use ParseError as E;
    let base = |seq: u32| roce(0x0A, seq).with_payload(64, seq);
    let v6 = |seq: u32| base(seq).ipv6(seq);
    let tagged = |seq: u32| base(seq).tagged(&[(ethertype::VLAN_CTAG, 1, 5)]);
    let qinq = |seq: u32| base(seq).tagged(&[(ethertype::VLAN_STAG, 1, 5), (ethertype::VLAN_CTAG, 2, 6)]);
    let with_transport = |op: u8, len: usize, seq: u32| {
        let mut f = roce(op, seq);
        f.transport_len = Some(len);
        f.build()
    };

    let mut per_class: Vec<(E, Vec<Vec<u8>>)> = vec![
        (
            E::TruncatedEth,
            vec![vec![], vec![0xFF; 5], cut(base(1).build(), 13), cut(tagged(2).build(), 17), cut(qinq(3).build(), 21)],
        ),
        (
            E::TruncatedIp,
            vec![cut(base(10).build(), 14 + 19), cut(tagged(11).build(), 18 + 1), cut(v6(12).build(), 14 + 39), {
                let mut f = base(13);
                f.l3 = L3::V4 { options: vec![1; 40] };
                cut(f.build(), 14 + 40)
            }],
        ),
        (
            E::BadIpVersion,
            vec![edit_ipv4(&base(20), |b, l3| b[l3] = 0x65), {
                let mut b = v6(21).build();
                b[14] = 0x40 | (b[14] & 0x0F);
                b
            }],
        ),
        (E::BadIhl, (0..5u8).map(|ihl| edit_ipv4(&base(30 + ihl as u32), |b, l3| b[l3] = 0x40 | ihl)).collect()),
        (
            E::BadIpv4Checksum,
            vec![
                {
                    let mut b = base(40).build();
                    b[14 + 11] ^= 0x01;
                    b
                },
                {
                    let mut b = qinq(41).build();
                    b[22 + 10..22 + 12].copy_from_slice(&[0, 0]);
                    b
                },
            ],
        ),
        (
            E::BadIpLength,
            vec![
                edit_ipv4(&base(50), |b, l3| set_u16(b, l3 + 2, 0)),
                edit_ipv4(&base(51), |b, l3| set_u16(b, l3 + 2, 19)),
            ],
        ),
        (
            E::IpLengthExceedsFrame,
            vec![
                edit_ipv4(&base(60), |b, l3| {
                    let total = u16::from_be_bytes([b[l3 + 2], b[l3 + 3]]);
                    set_u16(b, l3 + 2, total + 1)
                }),
                cut(base(61).build(), 14 + 20 + 4),
                {
                    let mut b = v6(62).build();
                    let plen = u16::from_be_bytes([b[18], b[19]]);
                    set_u16(&mut b, 18, plen + 1);
                    b
                },
                cut(v6(63).build(), 14 + 40 + 30),
            ],
        ),
        (
            E::IpFragment,
            vec![
                edit_ipv4(&base(70), |b, l3| b[l3 + 6] |= 0x20),
                edit_ipv4(&base(71), |b, l3| set_u16(b, l3 + 6, 185)),
            ],
        ),
        (
            E::Ipv6ExtHeader,
            [0u8, 43, 44, 60]
                .iter()
                .map(|&nh| {
                    let mut f = v6(80 + nh as u32);
                    f.ip_proto = nh;
                    f.build()
                })
                .collect(),
        ),
        (
            E::TruncatedUdp,
            vec![edit_ipv4(&base(90), |b, l3| set_u16(b, l3 + 2, 20 + 7)), {
                let mut b = v6(91).build();
                set_u16(&mut b, 18, 6);
                b
            }],
        ),
        (
            E::UdpLengthMismatch,
            vec![
                {
                    let mut b = base(100).build();
                    let len = u16::from_be_bytes([b[38], b[39]]);
                    set_u16(&mut b, 38, len - 1);
                    b
                },
                {
                    let mut b = v6(101).build();
                    set_u16(&mut b, 14 + 40 + 4, 0);
                    b
                },
            ],
        ),
        (
            E::TruncatedBth,
            vec![with_transport(0x04, 0, 110), with_transport(0x04, 5, 111), with_transport(0x04, 11, 112)],
        ),
        (
            E::BadTver,
            [1u8, 15]
                .iter()
                .map(|&tver| {
                    let mut f = base(120 + tver as u32);
                    f.bth.tver = tver;
                    f.build()
                })
                .collect(),
        ),
        (
            E::ReservedOpcode,
            [0x15u8, 0x18, 0x1F, 0x2C, 0x40, 0x66, 0x80, 0xA0, 0xC0, 0xFF]
                .iter()
                .map(|&op| RoceFrame::new(op, 130 + op as u32).with_payload(8, 130).build())
                .collect(),
        ),
        (
            E::TruncatedExt,
            vec![
                with_transport(0x0C, 12 + 8, 140),
                with_transport(0x13, 12 + 27, 141),
                with_transport(0x64, 12 + 4, 142),
                with_transport(0x81, 12 + 15, 143),
            ],
        ),
        (
            E::TooShortForIcrc,
            vec![
                with_transport(0x04, 12 + 3, 150),
                {
                    let mut f = RoceFrame::new(0x04, 151);
                    f.bth.pad_cnt = 3;
                    f.transport_len = Some(12 + 6);
                    f.build()
                },
                with_transport(0x0A, 12 + 16 + 2, 152),
            ],
        ),
        (
            E::BadIcrc,
            vec![
                {
                    let mut f = base(160);
                    f.corrupt_icrc = true;
                    f.build()
                },
                {
                    let mut b = base(161).build();
                    let last_payload = b.len() - 5;
                    b[last_payload] ^= 0x80;
                    b
                },
                {
                    // The BTH MigReq bit is covered by the ICRC.
                    let f = v6(162);
                    let mut b = f.build();
                    b[14 + 40 + 8 + 1] ^= 0x40;
                    b
                },
            ],
        ),
    ];
    // MAC Control: cut inside the opcode or its parameters; opcodes that are
    // neither PAUSE nor PFC (0x0002-0x0006 are EPON's, IEEE 802.3 Table 31A-1).
    let pfc = MacControlRepr::Pfc { class_enable: 0x00FF, pause_times: [0xFFFF; PFC_PRIORITIES] };
    let pause = MacControlRepr::Pause { pause_time: 0xFFFF };
    per_class.push((
        E::TruncatedMacControl,
        vec![
            cut(mac_control_frame(host_mac(1), &pfc), 14),
            cut(mac_control_frame(host_mac(1), &pfc), 15),
            cut(mac_control_frame(host_mac(1), &pfc), 16),
            cut(mac_control_frame(host_mac(1), &pfc), 14 + 19),
            cut(mac_control_frame(host_mac(2), &pause), 14 + 3),
        ],
    ));
    per_class.push((
        E::UnknownMacControlOpcode,
        [0x0000u16, 0x0002, 0x0003, 0x0006, 0x0100, 0x0102, 0x8808, 0xFFFF]
            .iter()
            .map(|&opcode| mac_control_frame(host_mac(3), &MacControlRepr::Other { opcode }))
            // Unpadded: an unknown opcode needs no more than itself.
            .chain([cut(mac_control_frame(host_mac(3), &MacControlRepr::Other { opcode: 0x0007 }), 16)])
            .collect(),
    ));
    let mut captures: Vec<Capture> = per_class
        .drain(..)
        .map(|(error, frames)| Capture {
            name: format!("errors/{}.pcap", error.name()),
            frames: frames.into_iter().map(GenFrame::ok).collect(),
            expect_error: Some(error),
            nic: None,
        })
        .collect();
    captures.push(Capture {
        name: format!("errors/{}.pcapng", ParseError::MacError.name()),
        frames: vec![roce(0x04, 170).build(), base(171).build(), RoceFrame::new(0x81, 172).build()]
            .into_iter()
            .map(|data| GenFrame { data, mac_error: true, time_ns: None })
            .collect(),
        expect_error: Some(ParseError::MacError),
        nic: None,
    });
    captures
}
