//! A run from its configuration (`SPEC.md` §9): the hosts, their NICs and
//! flows, and the switch; the event loop ([`super::world`]); then what the
//! run gives back.

use std::collections::{BinaryHeap, VecDeque};

use metaroce_golden::cc_params::CcMode;

use super::nic::Nic;
use super::outputs::{Flow, FlowTransport, LinkLosses, SimFailure, SimRun};
use super::packet;
use super::scenario::{SimCc, SimConfig};
use super::switch::Switch;
use super::world::{Event, Host, World, PS_PER_NS};
use crate::addresses::host_mac;
use crate::capture::{GenFrame, START_NS};
use crate::dice::Dice;

/// The experimental EtherType (IEEE 802 local experimental 1) of the marker
/// frame that opens every host capture at tick 0.
const MARKER_ETHERTYPE: u16 = 0x88B5;
/// Salts the lossy link's dice (`--loss`) away from the others of the seed.
const LOSS_SALT: u64 = 0x4C4F_5353;

/// Runs `config` with `cc` reacting to congestion.
pub fn run_cc(config: &SimConfig, cc: SimCc) -> Result<SimRun, SimFailure> {
    let (config, mode) = cc.apply(config);
    run(&config, mode)
}

/// Runs `config` with every NIC in `mode`.
pub fn run(config: &SimConfig, mode: CcMode) -> Result<SimRun, SimFailure> {
    config.validate()?;
    let mut config = config.clone();
    config.cc.mode = mode;
    let host_count = config.scenario.hosts();
    let mut hosts = Vec::with_capacity(host_count);
    for h in 0..host_count {
        let nic_config = config.nic_config(h);
        let regs = nic_config.cc.registers().map_err(|e| e.to_string())?;
        let nic = Nic::new(&nic_config, &regs, config.rtl.covers(h))
            .map_err(|e| SimFailure { host: Some(h), message: format!("host {h}: {e}") })?;
        let capture = if config.record_captures { vec![marker_frame(h, &config)] } else { Vec::new() };
        hosts.push(Host {
            nic,
            wake: None,
            generation: 0,
            in_pacer: vec![VecDeque::new(); host_count],
            egress: VecDeque::new(),
            link_busy: false,
            nic_config,
            capture,
            releases: Vec::new(),
        });
    }
    // The jitter's dice apart from the switch's (seeded with the seed itself).
    let mut dice = Dice(!config.seed);
    let line_kbps = config.link_gbps * 1_000_000;
    let flows: Vec<Flow> = config
        .scenario
        .flows()
        .into_iter()
        .map(|(src, dst)| Flow {
            src,
            dst,
            start_ps: if config.jitter_ns == 0 { 0 } else { dice.next() % (config.jitter_ns + 1) * PS_PER_NS },
            start_rate_kbps: line_kbps,
            transport: FlowTransport::new(config.packets_per_message()),
            ..Flow::default()
        })
        .collect();
    let mut flow_of = vec![None; host_count * host_count];
    for (i, f) in flows.iter().enumerate() {
        flow_of[f.src * host_count + f.dst] = Some(i);
    }
    let mut switch = Switch::new(host_count, config.buffer_bytes, config.red, config.mark, config.seed);
    switch.ecn = config.ecn;
    if config.pfc {
        switch.pfc = Some(config.switch_pfc()?);
    }
    let mut world = World {
        now: 0,
        sequence: 0,
        queue: BinaryHeap::new(),
        slots: Vec::new(),
        free: Vec::new(),
        hosts,
        flows_left: flows.len(),
        flows,
        flow_of,
        switch,
        samples: Vec::new(),
        cnps_sent: 0,
        cnps_received: 0,
        acks_sent: 0,
        acks_received: 0,
        link_losses: LinkLosses::default(),
        // The loss's dice apart from the jitter's and the switch's.
        loss_dice: Dice(config.seed ^ LOSS_SALT),
        pfc_frames_received: 0,
        first_mark_ps: None,
        first_cnp_ps: None,
        events: 0,
        failed_host: None,
        config,
    };
    for flow in 0..world.flows.len() {
        let start = world.flows[flow].start_ps;
        world.schedule(start, Event::Post { flow });
    }
    world.schedule(0, Event::Sample);
    world.run().map_err(|message| SimFailure { host: world.failed_host, message })?;
    let end = world.now;
    for flow in &mut world.flows {
        flow.pause_ends(end);
    }
    if let Some(pfc) = &mut world.switch.pfc {
        pfc.finish(end);
    }
    // Complete when every flow is: a flow whose requester gave up is not,
    // even if its packets all arrived (its sender's work request failed).
    let completion_ps = world
        .flows
        .iter()
        .map(|f| f.done_ps.filter(|_| f.transport.exhausted_ps.is_none()))
        .collect::<Option<Vec<_>>>()
        .and_then(|d| d.into_iter().max());
    let peak_port = (0..host_count).map(|p| world.switch.peak_depth(p)).collect();
    Ok(SimRun {
        mode,
        peak_buffer: world.switch.peak_used,
        peak_port,
        marks: world.switch.marks,
        drops: world.switch.drops,
        cnps_sent: world.cnps_sent,
        cnps_received: world.cnps_received,
        acks_sent: world.acks_sent,
        acks_received: world.acks_received,
        link_losses: world.link_losses,
        pfc: world.switch.pfc.as_ref().map(|p| p.counts),
        pfc_frames_received: world.pfc_frames_received,
        first_mark_ps: world.first_mark_ps,
        first_cnp_ps: world.first_cnp_ps,
        completion_ps,
        captures: world
            .hosts
            .iter_mut()
            .map(|h| (std::mem::take(&mut h.nic_config), std::mem::take(&mut h.capture)))
            .collect(),
        releases: world.hosts.iter_mut().map(|h| std::mem::take(&mut h.releases)).collect(),
        events: world.events,
        flows: world.flows,
        samples: world.samples,
        config: world.config,
    })
}

/// The frame that opens host `h`'s capture at tick 0, so that a replay's
/// time base is the simulation's: broadcast, experimental EtherType, the
/// scenario in words.
fn marker_frame(host: usize, config: &SimConfig) -> GenFrame {
    let mut data = vec![0xFF; 6];
    data.extend(host_mac(packet::address_of(host)));
    data.extend(MARKER_ETHERTYPE.to_be_bytes());
    data.extend(format!("metaroce sim: {}, host {host}", config.scenario.name()).bytes());
    data.resize(data.len().max(60), 0);
    GenFrame::at(START_NS, data)
}
