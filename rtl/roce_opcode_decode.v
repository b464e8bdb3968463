// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * BTH opcode to extension headers, combinational.
 *
 * | output     | width | meaning                                              |
 * |------------|-------|------------------------------------------------------|
 * | valid      | 1     | RoCEv2 carries this opcode (RC, UC, UD SEND, CNP)     |
 * | reth       | 1     | RETH (16 B) at extension offset 0                     |
 * | atomic     | 1     | AtomicETH (28 B) at offset 0                          |
 * | aeth       | 1     | AETH (4 B) at offset 0                                |
 * | atomic_ack | 1     | AtomicAckETH (8 B) at offset 4, after the AETH        |
 * | deth       | 1     | DETH (8 B) at offset 0                                |
 * | imm        | 1     | ImmDt (4 B) at imm_offset                             |
 * | ieth       | 1     | IETH (4 B) at offset 0                                |
 * | ext_len    | 5     | bytes of extension headers after the BTH (0..28)      |
 * | imm_offset | 5     | offset of ImmDt: 16 after RETH, 8 after DETH, else 0  |
 *
 * Source: IBTA vol. 1 table 38 via Linux rxe_opcode.c; CNP 0x81 from the
 * RoCEv2 annex. RD and XRC (RDETH/XRCETH) are not RoCEv2 traffic here and
 * decode as invalid, as do reserved codes. golden/src/opcode.rs is the twin.
 */
module roce_opcode_decode (
    input  wire [7:0] opcode,
    output reg        valid,
    output reg        reth,
    output reg        atomic,
    output reg        aeth,
    output reg        atomic_ack,
    output reg        deth,
    output reg        imm,
    output reg        ieth,
    output reg [4:0]  ext_len,
    output reg [4:0]  imm_offset
);

wire [2:0] transport = opcode[7:5];
wire [4:0] operation = opcode[4:0];
wire rc_or_uc = transport == 3'b000 || transport == 3'b001;
wire rc = transport == 3'b000;

// ext_len is set with each case, not summed from the flags, so that it is a
// lookup of the opcode (no adder chain after the decode).
always @* begin
    valid = 1'b0;
    reth = 1'b0;
    atomic = 1'b0;
    aeth = 1'b0;
    atomic_ack = 1'b0;
    deth = 1'b0;
    imm = 1'b0;
    ieth = 1'b0;
    ext_len = 5'd0;

    if (rc_or_uc) begin
        case (operation)
            5'h00, 5'h01, 5'h02, 5'h04, 5'h07, 5'h08: valid = 1'b1;
            5'h03, 5'h05, 5'h09: begin valid = 1'b1; imm = 1'b1; ext_len = 5'd4; end
            5'h06, 5'h0A: begin valid = 1'b1; reth = 1'b1; ext_len = 5'd16; end
            5'h0B: begin valid = 1'b1; reth = 1'b1; imm = 1'b1; ext_len = 5'd20; end
            default: ;
        endcase
    end
    if (rc) begin
        case (operation)
            5'h0C: begin valid = 1'b1; reth = 1'b1; ext_len = 5'd16; end
            5'h0D, 5'h0F, 5'h10, 5'h11: begin valid = 1'b1; aeth = 1'b1; ext_len = 5'd4; end
            5'h0E: valid = 1'b1;
            5'h12: begin valid = 1'b1; aeth = 1'b1; atomic_ack = 1'b1; ext_len = 5'd12; end
            5'h13, 5'h14: begin valid = 1'b1; atomic = 1'b1; ext_len = 5'd28; end
            5'h16, 5'h17: begin valid = 1'b1; ieth = 1'b1; ext_len = 5'd4; end
            default: ;
        endcase
    end
    if (opcode == 8'h64) begin
        valid = 1'b1;
        deth = 1'b1;
        ext_len = 5'd8;
    end
    if (opcode == 8'h65) begin
        valid = 1'b1;
        deth = 1'b1;
        imm = 1'b1;
        ext_len = 5'd12;
    end
    if (opcode == 8'h81) begin
        // CNP: 16 reserved bytes follow the BTH.
        valid = 1'b1;
        ext_len = 5'd16;
    end

    imm_offset = reth ? 5'd16 : (deth ? 5'd8 : 5'd0);
end

endmodule

`resetall
