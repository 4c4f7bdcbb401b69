// SPDX-License-Identifier: MIT
// Frame classifier of the prefilter, shared by scenic_prefilter (one frame per beat) and
// scenic_prefilter_seg (segmented bus, several frames per beat): combinational, from the first
// HDR_BYTES = 82 header bytes and the number of frame bytes known to be present (`avail`: the
// frame length if it ends inside the window, else at least 82). Rules: see scenic_prefilter.sv.
module scenic_prefilter_class (
    input  logic [82*8-1:0] hb,      // header bytes, byte o at [8*o +: 8]
    input  logic [15:0]     avail,
    output logic [1:0]      cls      // 0 RoCE v2, 1 TCP, 2 other, 3 runt
);

  localparam logic [15:0] ROCE_PORT = 16'd4791;
  localparam logic [1:0] C_ROCE  = 2'd0;
  localparam logic [1:0] C_TCP   = 2'd1;
  localparam logic [1:0] C_OTHER = 2'd2;
  localparam logic [1:0] C_RUNT  = 2'd3;

  logic [15:0] etype, dport4, dport6, l4_off;
  logic [3:0]  ihl;
  logic        v4_ok, v6_ok, v4_first;

  always_comb begin
    etype    = {hb[8*(12) +: 8], hb[8*(13) +: 8]};
    ihl      = hb[8*(14) +: 4];
    l4_off   = 16'd14 + {10'd0, ihl, 2'b00};
    v4_ok    = etype == 16'h0800 && hb[8*(14)+4 +: 4] == 4'd4 && ihl >= 4'd5 && avail >= l4_off;
    v4_first = {hb[8*(20) +: 5], hb[8*(21) +: 8]} == 13'd0;   // fragment offset 0
    v6_ok    = etype == 16'h86dd && hb[8*(14)+4 +: 4] == 4'd6 && avail >= 16'd54;
    dport6   = {hb[8*(56) +: 8], hb[8*(57) +: 8]};
    dport4   = '0;
    for (int k = 5; k <= 15; k++) begin
      if (ihl == 4'(k)) begin
        dport4 = {hb[8*(14 + 4*k + 2) +: 8], hb[8*(14 + 4*k + 3) +: 8]};
      end
    end

    if (avail < 16'd14) begin
      cls = C_RUNT;
    end else if (v4_ok && v4_first && hb[8*(23) +: 8] == 8'd17 && avail >= l4_off + 16'd8 &&
                 dport4 == ROCE_PORT) begin
      cls = C_ROCE;
    end else if (v4_ok && v4_first && hb[8*(23) +: 8] == 8'd6) begin
      cls = C_TCP;
    end else if (v6_ok && hb[8*(20) +: 8] == 8'd17 && avail >= 16'd62 && dport6 == ROCE_PORT) begin
      cls = C_ROCE;
    end else if (v6_ok && hb[8*(20) +: 8] == 8'd6) begin
      cls = C_TCP;
    end else begin
      cls = C_OTHER;
    end
  end

endmodule
