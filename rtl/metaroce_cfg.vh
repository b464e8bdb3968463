// Generated from golden/src/cc_table.rs by golden/cc_gen.rs: do not edit.
// Regenerate: METAROCE_BLESS=1 cargo test -p metaroce-golden --test cc_table
//
// The configuration bus `cfg` (SPEC.md §6.2, §7.1): every congestion-control
// register, packed from bit 0 in table order and held constant while running.
// `CFG_<NAME> is a register's slice (cfg[`CFG_<NAME>]), `CFG_<NAME>_W its width.
`ifndef METAROCE_CFG_VH
`define METAROCE_CFG_VH

`define CFG_WIDTH 569

// mode (Same): Which reaction the notification and reaction points run.
`define CFG_METAROCE 0:0
`define CFG_METAROCE_W 1

// line_rate_mbps (Thousand): Line rate: the start rate of every QP and the ceiling.
`define CFG_LINE_RATE_KBPS 32:1
`define CFG_LINE_RATE_KBPS_W 32

// line_rate_mbps (ByteTime): Line rate: the start rate of every QP and the ceiling.
`define CFG_LINE_BYTE_TIME 72:33
`define CFG_LINE_BYTE_TIME_W 40

// np_min_time_between_cnps (Thousand): Minimum time between two CNPs to one QP.
`define CFG_CNP_INTERVAL_NS 104:73
`define CFG_CNP_INTERVAL_NS_W 32

// np_cnp_dscp (Same): DSCP of the CNPs sent.
`define CFG_CNP_DSCP 110:105
`define CFG_CNP_DSCP_W 6

// np_cnp_prio (Same): 802.1p priority of CNPs sent on a VLAN.
`define CFG_CNP_PCP 113:111
`define CFG_CNP_PCP_W 3

// rp_min_rate (Thousand): Floor of the current rate.
`define CFG_MIN_RATE_KBPS 145:114
`define CFG_MIN_RATE_KBPS_W 32

// rp_min_dec_fac (PercentQ15): A cut never leaves less than this percentage of the rate (register: Q1.15, rounded down).
`define CFG_MIN_DEC_Q15 161:146
`define CFG_MIN_DEC_Q15_W 16

// rp_dce_tcp_g (Mlx5Weight): Weight kept on the old alpha, in 1/1024, as mlx5's `dce_tcp_g` (register: the gain g = 1024 - value).
`define CFG_G 172:162
`define CFG_G_W 11

// rp_dce_tcp_rtt (Thousand): Alpha update period.
`define CFG_ALPHA_PERIOD_NS 204:173
`define CFG_ALPHA_PERIOD_NS_W 32

// rp_time_reset (Thousand): Rate increase timer T.
`define CFG_TIME_RESET_NS 236:205
`define CFG_TIME_RESET_NS_W 32

// rp_byte_reset (Same): Rate increase byte counter B.
`define CFG_BYTE_RESET 268:237
`define CFG_BYTE_RESET_W 32

// rp_threshold (Same): Stage threshold F (stage counts saturate at 255).
`define CFG_THRESHOLD 276:269
`define CFG_THRESHOLD_W 8

// rp_ai_rate (Thousand): Additive increase R_AI.
`define CFG_AI_KBPS 308:277
`define CFG_AI_KBPS_W 32

// rp_hai_rate (Thousand): Hyper increase R_HAI.
`define CFG_HAI_KBPS 340:309
`define CFG_HAI_KBPS_W 32

// rp_initial_alpha_value (Mlx5Alpha): Alpha of a QP before its first CNP, 0..1023 (register: Q1.15, 1023 = 1.0 exactly).
`define CFG_INITIAL_ALPHA 356:341
`define CFG_INITIAL_ALPHA_W 16

// rp_rate_to_set_on_first_cnp (Thousand): Rate after the first CNP of a QP; 0 = cut as usual.
`define CFG_FIRST_CNP_KBPS 388:357
`define CFG_FIRST_CNP_KBPS_W 32

// rp_clamp_tgt_rate (Same): 1: every CNP sets the target rate to the current rate; 0: only a CNP after a rate increase does.
`define CFG_CLAMP_TGT 389:389
`define CFG_CLAMP_TGT_W 1

// rp_rate_reduce_monitor_period (Thousand): At most one rate cut per period: a CNP within this time of the QP's last cut does not cut but still updates alpha and restarts its timer (ns-3 `cnp_received_mlx`); 0 = every CNP cuts.
`define CFG_REDUCE_PERIOD_NS 421:390
`define CFG_REDUCE_PERIOD_NS_W 32

// pacer_burst_bytes (Same): Pacer burst allowance: how far a QP may run ahead of its rate.
`define CFG_BURST_BYTES 437:422
`define CFG_BURST_BYTES_W 16

// pacer_min_gap_ns (Same): Pacer minimum time between two packets of one QP.
`define CFG_MIN_GAP_NS 469:438
`define CFG_MIN_GAP_NS_W 32

// pacer_start_rate (ByteTime): Pacer rate of a QP before its first rate change; 0 = line rate (register: its byte time, Q20.20).
`define CFG_START_BYTE_TIME 509:470
`define CFG_START_BYTE_TIME_W 40

// ack_mode (Same): Which acknowledgments the responder sends for received RC requests.
`define CFG_ACK_MODE 511:510
`define CFG_ACK_MODE_W 2

// ack_coalesce_pkts (Same): The responder acknowledges at least every this many in-order packets, AckReq or not.
`define CFG_ACK_COALESCE_PKTS 519:512
`define CFG_ACK_COALESCE_PKTS_W 8

// ack_coalesce_ns (Same): With ack_mode metaroce, a packet arriving this long after the oldest one not yet acknowledged is acknowledged (0 = by packet count alone).
`define CFG_ACK_COALESCE_NS 551:520
`define CFG_ACK_COALESCE_NS_W 32

// ack_dscp (Same): DSCP of the ACKs and NAKs sent (the data's class).
`define CFG_ACK_DSCP 557:552
`define CFG_ACK_DSCP_W 6

// ack_prio (Same): 802.1p priority of ACKs and NAKs sent on a VLAN.
`define CFG_ACK_PCP 560:558
`define CFG_ACK_PCP_W 3

// retry_cnt (Same): Go-backs the requester makes without progress; the next one puts the QP in error (retry exhausted).
`define CFG_RETRY_CNT 563:561
`define CFG_RETRY_CNT_W 3

// retx_timeout (Same): The requester's retransmit timer, 4.096 us * 2^v (doubling with each retry); 0 has none.
`define CFG_RETX_TIMEOUT 568:564
`define CFG_RETX_TIMEOUT_W 5

`endif
