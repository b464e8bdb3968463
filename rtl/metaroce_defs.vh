// Generated from the golden model's codes by golden/tests/rtl_defs.rs: do not edit.
// Regenerate with `METAROCE_BLESS=1 cargo test -p metaroce-golden --test rtl_defs`.
//
// Included inside a module body: each module takes the codes it uses
// from here as localparams.
/* verilator lint_off UNUSEDPARAM */

// Parse record class, m_meta_frame_class (golden/src/record.rs FrameClass).
localparam [1:0] CLASS_ROCE = 2'd0;
localparam [1:0] CLASS_NON_ROCE = 2'd1;
localparam [1:0] CLASS_ERROR = 2'd2;
localparam [1:0] CLASS_FLOW_CONTROL = 2'd3;

// Parse error, m_meta_error, 0 for none (golden/src/record.rs ParseError).
localparam [4:0] ERR_NONE = 5'd0;
localparam [4:0] ERR_MAC_ERROR = 5'd1;
localparam [4:0] ERR_TRUNCATED_ETH = 5'd2;
localparam [4:0] ERR_TRUNCATED_IP = 5'd3;
localparam [4:0] ERR_BAD_IP_VERSION = 5'd4;
localparam [4:0] ERR_BAD_IHL = 5'd5;
localparam [4:0] ERR_BAD_IPV4_CHECKSUM = 5'd6;
localparam [4:0] ERR_BAD_IP_LENGTH = 5'd7;
localparam [4:0] ERR_IP_LENGTH_EXCEEDS_FRAME = 5'd8;
localparam [4:0] ERR_IP_FRAGMENT = 5'd9;
localparam [4:0] ERR_IPV6_EXT_HEADER = 5'd10;
localparam [4:0] ERR_TRUNCATED_UDP = 5'd11;
localparam [4:0] ERR_UDP_LENGTH_MISMATCH = 5'd12;
localparam [4:0] ERR_TRUNCATED_BTH = 5'd13;
localparam [4:0] ERR_BAD_TVER = 5'd14;
localparam [4:0] ERR_RESERVED_OPCODE = 5'd15;
localparam [4:0] ERR_TRUNCATED_EXT = 5'd16;
localparam [4:0] ERR_TOO_SHORT_FOR_ICRC = 5'd17;
localparam [4:0] ERR_BAD_ICRC = 5'd18;
localparam [4:0] ERR_TRUNCATED_MAC_CONTROL = 5'd19;
localparam [4:0] ERR_UNKNOWN_MAC_CONTROL_OPCODE = 5'd20;
// The highest code: the RTL's assertions refuse any above it.
localparam [4:0] ERR_LAST = 5'd20;

// Congestion-notification event kind, s_evt_kind (golden/src/cn_event.rs CnEventKind).
localparam [1:0] KIND_RX_DATA = 2'd0;
localparam [1:0] KIND_RX_CNP = 2'd1;
localparam [1:0] KIND_TX_DATA = 2'd2;
localparam [1:0] KIND_TIME = 2'd3;

// Rate change stage, m_rate_stage (golden/src/reaction.rs RateStage).
localparam [1:0] STAGE_CUT = 2'd0;
localparam [1:0] STAGE_FAST_RECOVERY = 2'd1;
localparam [1:0] STAGE_ADDITIVE_INCREASE = 2'd2;
localparam [1:0] STAGE_HYPER_INCREASE = 2'd3;

// Rate change trigger, m_rate_trigger (golden/src/reaction.rs RateTrigger).
localparam [1:0] TRIGGER_CNP = 2'd0;
localparam [1:0] TRIGGER_TIMER = 2'd1;
localparam [1:0] TRIGGER_BYTE_COUNTER = 2'd2;
localparam [1:0] TRIGGER_SENT = 2'd3;

// Retransmit request cause, m_retx_cause (golden/src/requester.rs RetxCause).
localparam [1:0] CAUSE_NAK = 2'd0;
localparam [1:0] CAUSE_RETRY_EXHAUSTED = 2'd1;
localparam [1:0] CAUSE_TIMEOUT = 2'd2;
localparam [1:0] CAUSE_SELECTIVE = 2'd3;

// Register ack_mode, cfg[`CFG_ACK_MODE] (golden/src/cc_table.rs AckMode).
localparam [1:0] ACK_MODE_OFF = 2'd0;
localparam [1:0] ACK_MODE_ROCEV2 = 2'd1;
localparam [1:0] ACK_MODE_METAROCE = 2'd2;

// The CNP's BTH opcode (golden/src/opcode.rs).
localparam [7:0] OPCODE_CNP = 8'h81;

// RC ACKNOWLEDGE's BTH opcode (golden/src/opcode.rs RC_ACK) and its AETH
// syndromes (golden/src/responder.rs, SPEC.md §6.10): the ACK the responder
// sends (credit count 31, "invalid"), the NAK "PSN sequence error".
localparam [7:0] OPCODE_RC_ACK = 8'h11;
localparam [7:0] SYNDROME_ACK = 8'h1F;
localparam [7:0] SYNDROME_NAK_PSN = 8'h60;

// The selective ACK's extension after the AETH (golden/src/opcode.rs,
// SPEC.md §6.10): its tag, version and the flag of a drop past the window
// (golden/src/wire/ib.rs SackRepr::BEYOND); SACK_WINDOW PSNs in its bitmap
// (golden/src/responder.rs).
localparam [15:0] SACK_TAG = 16'h4D53;
localparam [7:0] SACK_VERSION = 8'd1;
localparam [7:0] SACK_FLAG_BEYOND = 8'd1;
localparam SACK_WINDOW = 64;
/* verilator lint_on UNUSEDPARAM */
