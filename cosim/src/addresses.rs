//! The test network's address plan, shared by the regression stimuli and
//! the simulator: host `h` is 02:00:00:00:00:hh, 10.0.0.hh and fd00::hh.

pub fn host_mac(h: u8) -> [u8; 6] {
    [0x02, 0, 0, 0, 0, h]
}

/// The MAC of the simulator switch's port `p` (0-based), the source of its
/// PFC frames: 02:00:00:00:01:(p+1).
pub fn switch_port_mac(port: usize) -> [u8; 6] {
    [0x02, 0, 0, 0, 0x01, u8::try_from(port + 1).expect("at most 255 ports")]
}

pub fn host_ipv4(h: u8) -> [u8; 4] {
    [10, 0, 0, h]
}

pub fn host_ipv6(h: u8) -> [u8; 16] {
    let mut ip = [0u8; 16];
    ip[0] = 0xFD;
    ip[15] = h;
    ip
}
