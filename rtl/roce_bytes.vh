// SPDX-License-Identifier: MIT
//
// Included inside a module body: multi-byte header fields in wire order,
// the first byte on the wire in bits 7:0 (the AXI-Stream byte order of the
// frames roce_reply_frame.v builds, and of the BTH and extension bytes
// cnp_notify.v and roce_responder.v hand it). No include guard: each
// module that uses them includes them.

function [15:0] be16(input [15:0] v);
    be16 = {v[7:0], v[15:8]};
endfunction
function [23:0] be24(input [23:0] v);
    be24 = {v[7:0], v[15:8], v[23:16]};
endfunction
function [31:0] be32(input [31:0] v);
    be32 = {v[7:0], v[15:8], v[23:16], v[31:24]};
endfunction
function [47:0] be48(input [47:0] v);
    integer k;
    for (k = 0; k < 6; k = k + 1) be48[k*8 +: 8] = v[(5-k)*8 +: 8];
endfunction
function [63:0] be64(input [63:0] v);
    integer k;
    for (k = 0; k < 8; k = k + 1) be64[k*8 +: 8] = v[(7-k)*8 +: 8];
endfunction
function [127:0] be128(input [127:0] v);
    integer k;
    for (k = 0; k < 16; k = k + 1) be128[k*8 +: 8] = v[(15-k)*8 +: 8];
endfunction
