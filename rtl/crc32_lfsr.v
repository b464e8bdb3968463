// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * CRC-32 over one whole datapath beat, combinational.
 *
 * | signal    | width      | meaning                                              |
 * |-----------|------------|------------------------------------------------------|
 * | state_in  | 32         | reflected CRC register before the beat (no final XOR) |
 * | data_in   | DATA_WIDTH | beat, bit 0 first on the wire (AXI-Stream byte order) |
 * | state_out | 32         | register after all DATA_WIDTH bits                    |
 *
 * Polynomial 0x04C11DB7, reflected (0xEDB88320), as Ethernet and the RoCEv2
 * ICRC. The update is linear over GF(2): each output bit is the parity of a
 * fixed subset of {data_in, state_in}. crc32_matrix() finds those subsets at
 * elaboration by running the bit-serial LFSR on symbolic inputs, so the
 * hardware is one XOR tree per output bit for any DATA_WIDTH.
 */
module crc32_lfsr #(
    parameter DATA_WIDTH = 64
) (
    input  wire [31:0]           state_in,
    input  wire [DATA_WIDTH-1:0] data_in,
    output wire [31:0]           state_out
);

localparam IN_WIDTH = DATA_WIDTH + 32;
localparam [31:0] POLY_REFLECTED = 32'hEDB88320;

// Elaboration only: no run-time coverage points.
/* verilator coverage_off */
// Row n (bits n*IN_WIDTH +: IN_WIDTH) marks the inputs feeding state_out[n];
// input index i < 32 is state_in[i], 32 + t is data_in[t].
function [32*IN_WIDTH-1:0] crc32_matrix(input integer data_bits);
    reg [32*IN_WIDTH-1:0] rows;
    reg [IN_WIDTH-1:0] feedback;
    integer t, n;
    begin
        rows = 0;
        for (n = 0; n < 32; n = n + 1) begin
            rows[n*IN_WIDTH + n] = 1'b1;
        end
        for (t = 0; t < data_bits; t = t + 1) begin
            feedback = rows[IN_WIDTH-1:0];
            feedback[32 + t] = ~feedback[32 + t];
            rows = rows >> IN_WIDTH;
            for (n = 0; n < 32; n = n + 1) begin
                if (POLY_REFLECTED[n]) begin
                    rows[n*IN_WIDTH +: IN_WIDTH] = rows[n*IN_WIDTH +: IN_WIDTH] ^ feedback;
                end
            end
        end
        crc32_matrix = rows;
    end
endfunction

/* verilator coverage_on */

localparam [32*IN_WIDTH-1:0] MATRIX = crc32_matrix(DATA_WIDTH);

wire [IN_WIDTH-1:0] in_bits = {data_in, state_in};

genvar n;
generate
    for (n = 0; n < 32; n = n + 1) begin : g_bit
        assign state_out[n] = ^(in_bits & MATRIX[n*IN_WIDTH +: IN_WIDTH]);
    end
endgenerate

endmodule

`resetall
