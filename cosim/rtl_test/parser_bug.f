// TEST ONLY: the parser with deliberate bugs (Vparser64Bug), top first.
cosim/rtl_test/roce_parser_bug.v
rtl/roce_parser.v
rtl/crc32_lfsr.v
rtl/roce_opcode_decode.v
