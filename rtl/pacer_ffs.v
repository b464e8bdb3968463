// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Find first set (combinational): the lowest set bit of `bits`, as a
 * balanced tree of 2:1 choices, log2(WIDTH) deep (a chain of WIDTH
 * priority muxes would be WIDTH deep). Used by the pacer's wheel scan
 * (pacer_scan.v).
 *
 * | port  | width          | meaning                                  |
 * |-------|----------------|------------------------------------------|
 * | bits  | WIDTH          | the bits; WIDTH a power of 2, at least 2 |
 * | any   | 1              | some bit is set                          |
 * | index | log2(WIDTH)    | the lowest set bit (0 when none)         |
 */
module pacer_ffs #(
    parameter WIDTH = 16,
    parameter INDEX_WIDTH = $clog2(WIDTH)
) (
    input  wire [WIDTH-1:0]       bits,
    output wire                   any,
    output wire [INDEX_WIDTH-1:0] index
);

// Illegal parameters stop elaboration: the instance of a module that does
// not exist names the rule (Icarus Verilog 11 has no elaboration $error).
generate
    if (WIDTH < 2 || (WIDTH & (WIDTH - 1)) != 0 || INDEX_WIDTH != $clog2(WIDTH)) begin : g_bad_width
        pacer_ffs_WIDTH_must_be_a_power_of_2_at_least_2 bad_width();
    end
endgenerate

// Level k has WIDTH >> k nodes; a node's index has k bits (one more per
// level: set when the lower half is empty). Level 0 carries no index.
genvar k, i;
generate
    for (k = 0; k <= INDEX_WIDTH; k = k + 1) begin : g_level
        wire [(WIDTH >> k)-1:0] node_any;
        if (k == 0) begin : g_leaves
            assign node_any = bits;
        end else begin : g_nodes
            wire [(WIDTH >> k)*k-1:0] node_index;
            for (i = 0; i < (WIDTH >> k); i = i + 1) begin : g_node
                wire low = g_level[k-1].node_any[2*i];
                wire high = g_level[k-1].node_any[2*i+1];
                assign node_any[i] = low || high;
                if (k == 1) begin : g_first
                    assign node_index[i] = !low;
                end else begin : g_upper
                    assign node_index[i*k +: k] = low ? {1'b0, g_level[k-1].g_nodes.node_index[2*i*(k-1) +: k-1]}
                                                      : {1'b1, g_level[k-1].g_nodes.node_index[(2*i+1)*(k-1) +: k-1]};
                end
            end
        end
    end
endgenerate

assign any = g_level[INDEX_WIDTH].node_any[0];
assign index = g_level[INDEX_WIDTH].g_nodes.node_index[INDEX_WIDTH-1:0];

endmodule

`resetall
