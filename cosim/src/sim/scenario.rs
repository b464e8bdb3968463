//! What a run is: the scenario (who sends to whom), the network, and each
//! host's NIC file (`SPEC.md` §9.1).

use metaroce_golden::cc_params::{AckMode, CcMode, CcParams};
use metaroce_golden::cc_presets::CcPreset;
use metaroce_golden::cn_event::{NicConfig, QpContext};
use metaroce_golden::record::MacAddr;

use super::packet::{self, priority_of_dscp, Packet, DATA_DSCP};
use super::pfc::{headroom_bytes, Pfc};
use super::switch::{MarkPoint, RedProfile};
use crate::addresses::host_mac;

/// QPs start here (0 and 1 are InfiniBand's special QPs).
pub const QP_BASE: u32 = 16;

/// Host `h`'s QP towards peer `p` among `hosts`: `16 + (p - h) mod hosts`.
/// A host's QPs differ, and so do the remote QPs in its table, which is
/// how a sent frame's QP is found from its destination QP (`SPEC.md` §6.1).
pub fn qp_toward(h: usize, p: usize, hosts: usize) -> u32 {
    QP_BASE + ((p + hosts - h) % hosts) as u32
}

/// The peer host `h`'s QP `qp` talks to.
pub fn peer_of(h: usize, qp: u32, hosts: usize) -> Option<usize> {
    let offset = qp.checked_sub(QP_BASE)? as usize;
    (offset > 0 && offset < hosts).then(|| (h + offset) % hosts)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scenario {
    /// `senders` hosts each send one message to host 0.
    Incast { senders: usize },
    /// Every one of `hosts` hosts sends one message to every other.
    AllToAll { hosts: usize },
    /// The incast of `senders` to host 0, and beside it one flow from host 1
    /// (a sender of the incast) to host `senders + 1`, whose own egress is
    /// never congested: the victim when a pause stops all of host 1.
    Victim { senders: usize },
}

impl Scenario {
    pub fn hosts(&self) -> usize {
        match *self {
            Scenario::Incast { senders } => senders + 1,
            Scenario::AllToAll { hosts } => hosts,
            Scenario::Victim { senders } => senders + 2,
        }
    }

    /// (source, destination) of every flow.
    pub fn flows(&self) -> Vec<(usize, usize)> {
        match *self {
            Scenario::Incast { senders } => (1..=senders).map(|s| (s, 0)).collect(),
            Scenario::AllToAll { hosts } => {
                (0..hosts).flat_map(|s| (0..hosts).filter(move |&d| d != s).map(move |d| (s, d))).collect()
            }
            Scenario::Victim { senders } => {
                let mut flows = Scenario::Incast { senders }.flows();
                flows.push((1, senders + 1));
                flows
            }
        }
    }

    /// The victim scenario's victim: the last flow.
    pub fn victim_flow(&self) -> Option<usize> {
        match *self {
            Scenario::Victim { senders } => Some(senders),
            _ => None,
        }
    }

    /// Flow `flow`'s max-min fair share of the link rate (every link has
    /// one rate): a flow of the incast or the all-to-all is held by its
    /// busier end's flow count; the victim flow gets the rest of host 1's
    /// link beside host 1's incast flow.
    pub fn fair_share(&self, flow: usize) -> f64 {
        match *self {
            Scenario::Victim { senders } if Some(flow) == self.victim_flow() => 1.0 - 1.0 / senders as f64,
            Scenario::Incast { senders } | Scenario::Victim { senders } => 1.0 / senders as f64,
            Scenario::AllToAll { hosts } => 1.0 / (hosts - 1) as f64,
        }
    }

    pub fn name(&self) -> String {
        match *self {
            Scenario::Incast { senders } => format!("incast {senders}:1"),
            Scenario::AllToAll { hosts } => format!("all-to-all, {hosts} hosts"),
            Scenario::Victim { senders } => format!("victim beside incast {senders}:1"),
        }
    }
}

/// What reacts to congestion in a run (`--cc`): the NICs in a mode; half
/// the NICs in each (`mixed`: even hosts MetaRoCE, odd hosts DCQCN, so an
/// incast's senders are split and its receiver runs MetaRoCE); or nothing:
/// the switch marks no ECN, so no CNP is sent and every QP keeps the line
/// rate (Meta's RoCE fabric for AI training ran on PFC alone, DCQCN off:
/// SIGCOMM 2024).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimCc {
    None,
    Nic(CcMode),
    Mixed,
}

impl SimCc {
    pub const DCQCN: SimCc = SimCc::Nic(CcMode::Dcqcn);
    pub const METAROCE: SimCc = SimCc::Nic(CcMode::Metaroce);

    pub fn name(self) -> &'static str {
        match self {
            SimCc::None => "none",
            SimCc::Nic(mode) => mode.name(),
            SimCc::Mixed => "mixed",
        }
    }

    /// `config` with this reaction: ECN off for none, the even hosts in
    /// MetaRoCE for mixed; and the NICs' mode (DCQCN's with ECN off, where
    /// it never runs, and at the odd hosts of mixed).
    pub fn apply(self, config: &SimConfig) -> (SimConfig, CcMode) {
        let mut config = config.clone();
        config.ecn = self != SimCc::None;
        config.mixed = self == SimCc::Mixed;
        (config, if let SimCc::Nic(mode) = self { mode } else { CcMode::Dcqcn })
    }
}

/// Where the Verilated top runs instead of the golden model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RtlPlacement {
    #[default]
    Nowhere,
    Host(usize),
    Everywhere,
}

impl RtlPlacement {
    pub(super) fn covers(&self, host: usize) -> bool {
        match *self {
            RtlPlacement::Nowhere => false,
            RtlPlacement::Host(h) => h == host,
            RtlPlacement::Everywhere => true,
        }
    }
}

/// Random loss on one link (`--loss`, `--loss-port`): every RoCE frame the
/// switch sends towards host `port` is lost on the wire with probability
/// `rate` (a frame with a bad FCS, which the NIC's MAC discards). PFC frames
/// are not: they are the link's own, and no transport recovers them.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LinkLoss {
    pub port: usize,
    pub rate: f64,
}

impl LinkLoss {
    /// The dice's threshold: a draw below it loses the frame.
    pub(super) fn threshold(&self) -> u64 {
        (self.rate * u64::MAX as f64) as u64
    }
}

/// One run's configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct SimConfig {
    pub scenario: Scenario,
    pub link_gbps: u32,
    /// Propagation delay of each link (host to switch), ns.
    pub link_delay_ns: u64,
    /// Bytes of each flow's message.
    pub message_bytes: u64,
    /// Payload bytes per packet.
    pub mtu: u32,
    /// Each flow starts at a uniform random time in [0, jitter].
    pub jitter_ns: u64,
    pub buffer_bytes: u64,
    pub red: RedProfile,
    /// Where the switch marks ECN (`--mark`; dequeue, as HPCC's ns-3).
    pub mark: MarkPoint,
    /// Whether the switch marks ECN at all (`--cc none`: it does not, so no
    /// NIC ever cuts a rate; Meta's PFC-only fabric ran so).
    pub ecn: bool,
    /// Lossless data behind priority flow control (`--pfc`, `SPEC.md` §9.6).
    pub pfc: bool,
    /// The even hosts' NICs in MetaRoCE mode whatever `cc` says (`--cc mixed`).
    pub mixed: bool,
    /// Every NIC's congestion control (its line rate is the link's), and
    /// its reliable delivery: with `ack_mode` on, the loop's (§9.7).
    pub cc: CcParams,
    /// Random loss on one link (`--loss`; none by default).
    pub loss: LinkLoss,
    /// The preset `cc` started from (`--cc-preset`), for the figures' names.
    pub preset: Option<CcPreset>,
    pub rtl: RtlPlacement,
    pub seed: u64,
    pub sample_ns: u64,
    /// The run stops here even if flows are left.
    pub max_time_ns: u64,
    /// Keep every NIC's input stream for the captures.
    pub record_captures: bool,
}

impl SimConfig {
    /// Defaults for `scenario` at `link_gbps` (`SPEC.md` §9).
    pub fn new(scenario: Scenario, link_gbps: u32) -> Self {
        SimConfig {
            scenario,
            link_gbps,
            link_delay_ns: 1000,
            message_bytes: 4 << 20,
            mtu: 4096,
            jitter_ns: 0,
            buffer_bytes: 32 << 20,
            red: RedProfile::for_link(link_gbps),
            mark: MarkPoint::default(),
            ecn: true,
            pfc: false,
            mixed: false,
            cc: CcParams { line_rate_mbps: link_gbps * 1000, ..CcParams::default() },
            preset: None,
            loss: LinkLoss::default(),
            rtl: RtlPlacement::Nowhere,
            seed: 1,
            sample_ns: 1000,
            max_time_ns: 100_000_000,
            record_captures: true,
        }
    }

    /// Starts `cc` from `preset`'s values at the link's rate (`SPEC.md` §6.8).
    pub fn apply_preset(&mut self, preset: CcPreset) -> Result<(), String> {
        self.cc.line_rate_mbps = self.link_gbps * 1000;
        self.cc.apply_preset(preset).map_err(|e| format!("--cc-preset {preset}: {e}"))?;
        self.preset = Some(preset);
        Ok(())
    }

    /// What the congestion-control parameters are named by: the preset, or
    /// `defaults` (the parameter table's).
    pub fn preset_name(&self) -> &'static str {
        self.preset.map_or("defaults", CcPreset::name)
    }

    /// Refuses what the network or the NICs cannot run.
    pub fn validate(&self) -> Result<(), String> {
        let hosts = self.scenario.hosts();
        match self.scenario {
            Scenario::Incast { senders } if !(2..=64).contains(&senders) => {
                return Err(format!("incast: {senders} senders; 2 to 64"));
            }
            Scenario::AllToAll { hosts } if !(2..=64).contains(&hosts) => {
                return Err(format!("all-to-all: {hosts} hosts; 2 to 64"));
            }
            Scenario::Victim { senders } if !(2..=62).contains(&senders) => {
                return Err(format!("victim: {senders} senders; 2 to 62"));
            }
            _ => {}
        }
        if let RtlPlacement::Host(h) = self.rtl {
            if h >= hosts {
                return Err(format!("--rtl {h}: there are hosts 0 to {}", hosts - 1));
            }
        }
        // PSNs are 24 bits, and go-back-N reads half their range as behind.
        if self.reliable() && self.packets_per_message() >= 1 << 23 {
            return Err(format!(
                "ack_mode={}: a message of {} packets; PSNs allow fewer than 2^23",
                self.cc.ack_mode.name(),
                self.packets_per_message()
            ));
        }
        if !(0.0..=0.5).contains(&self.loss.rate) {
            return Err(format!("--loss {}: a fraction of frames, 0 to 0.5", self.loss.rate));
        }
        if self.loss.port >= hosts {
            return Err(format!("--loss-port {}: there are hosts 0 to {}", self.loss.port, hosts - 1));
        }
        if !(1..=1600).contains(&self.link_gbps) {
            return Err(format!("link rate {} Gb/s: 1 to 1600", self.link_gbps));
        }
        if self.link_delay_ns > 1_000_000 {
            return Err(format!("link delay {} ns: at most 1,000,000 (1 ms)", self.link_delay_ns));
        }
        if !(256..=9000).contains(&self.mtu) {
            return Err(format!("MTU {} B: 256 to 9000", self.mtu));
        }
        if self.message_bytes == 0 {
            return Err("the message size must be at least 1 byte".into());
        }
        if self.sample_ns == 0 {
            return Err("the sample interval must be at least 1 ns".into());
        }
        if self.buffer_bytes < u64::from(self.mtu) + 128 {
            return Err(format!("a {} B buffer holds no packet", self.buffer_bytes));
        }
        if self.red.kmin > self.red.kmax || !(0.0..=1.0).contains(&self.red.pmax) {
            return Err("ECN marking needs kmin <= kmax and pmax in [0, 1]".into());
        }
        if self.pfc {
            self.switch_pfc()?;
        }
        Ok(())
    }

    /// The switch's PFC (`--pfc`): data's priority lossless, each port's
    /// headroom computed from the link and its host's QPs.
    pub fn switch_pfc(&self) -> Result<Pfc, String> {
        let max_frame = Packet::frame_len(self.mtu) as u64;
        let mut qps = vec![0; self.scenario.hosts()];
        for (src, _) in self.scenario.flows() {
            qps[src] += 1;
        }
        let headroom =
            qps.into_iter().map(|q| headroom_bytes(self.link_gbps, self.link_delay_ns, max_frame, q)).collect();
        Pfc::new(self.buffer_bytes, headroom, 1 << priority_of_dscp(DATA_DSCP), self.link_gbps)
    }

    /// Whether the NICs' ACKs, NAKs and retransmit requests carry the
    /// loop's reliable delivery (`ack_mode` on, §9.7).
    pub fn reliable(&self) -> bool {
        self.cc.ack_mode != AckMode::Off
    }

    pub(super) fn packets_per_message(&self) -> u64 {
        self.message_bytes.div_ceil(u64::from(self.mtu))
    }

    pub(super) fn payload_of(&self, index: u64) -> u32 {
        let left = self.message_bytes - index * u64::from(self.mtu);
        left.min(u64::from(self.mtu)) as u32
    }

    /// Host `h`'s NIC file: its MAC, a QP per peer it talks to, the cc.
    pub fn nic_config(&self, host: usize) -> NicConfig {
        let hosts = self.scenario.hosts();
        let mut peers: Vec<usize> = self
            .scenario
            .flows()
            .into_iter()
            .filter_map(|(s, d)| (s == host).then_some(d).or((d == host).then_some(s)))
            .collect();
        peers.sort_unstable();
        peers.dedup();
        let mut cc = self.cc;
        cc.line_rate_mbps = self.link_gbps * 1000;
        if self.mixed {
            cc.mode = if host.is_multiple_of(2) { CcMode::Metaroce } else { CcMode::Dcqcn };
        }
        NicConfig {
            local_mac: Some(MacAddr(host_mac(packet::address_of(host))).to_string()),
            qps: peers
                .into_iter()
                .map(|p| QpContext {
                    local: qp_toward(host, p, hosts),
                    remote: qp_toward(p, host, hosts),
                    priority: priority_of_dscp(DATA_DSCP) as u8,
                    // Every message starts at PSN 0 (`Packet::data`): the
                    // responder expects it even if the first packet is lost.
                    rq_psn: Some(0),
                })
                .collect(),
            cc,
        }
    }
}
