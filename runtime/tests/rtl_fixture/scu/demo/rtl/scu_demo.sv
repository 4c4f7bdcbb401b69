// SPDX-License-Identifier: MIT
// An accumulator: enough logic for yosys to report LUTs and flip-flops.
module scu_demo (
    input  logic        clk,
    input  logic        rst,
    input  logic [63:0] a,
    output logic [63:0] q
);
  always_ff @(posedge clk) begin
    if (rst) q <= '0;
    else q <= q + a;
  end
endmodule
