// SPDX-License-Identifier: MIT
// Network prefilter (SCENIC paper section 5, "triage layer"): classifies each Ethernet frame from
// its headers and steers it to the offloaded RoCE v2 stack or to the host fallback path.
//
//   class  RoCE v2 : IPv4 (IHL 5..15, not a non-first fragment) or IPv6 (next header UDP, no
//                    extension headers), UDP destination port 4791, UDP header present
//          TCP     : IPv4/IPv6 protocol/next header 6, IP header present
//          other   : everything else (ARP, other ethertypes, VLAN-tagged frames, IPv6 extension
//                    headers, fragments, truncated headers)
//          runt    : frame shorter than 14 bytes -> dropped and counted
//   m_axis_rdma  : RoCE v2 frames when rdma_en (sampled with the frame's headers)
//   m_axis_host  : every other non-runt frame; m_axis_host_tuser carries its class
//
// Headers may straddle beats: the classifier looks at the first HDR_BYTES = 82 bytes (Ethernet
// 14 + IPv4 with options 60 + UDP header 8), i.e. HDR_BEATS = ceil(82 / KEEP_W) beats (2 at 512
// bits, 1 at 1024, 11 at 64). Beats wait in a FIFO of DEPTH entries until their frame is
// classified (at beat HDR_BEATS-1 or at tlast); a frame's first beat leaves at the earliest one
// cycle after its deciding beat was accepted. Steady state: one beat per cycle in and out.
// Configurations: 512 bit @ 250 MHz (U55C, 100G); the 200G configuration is DATA_W = 1024 @
// 250 MHz (see hw-rtl/README.md for what that means for 64-byte frames).
//
// tkeep must be contiguous from lane 0 and all-ones except on the last beat (asserted).
// Outputs are not registered (FIFO read port); put a register slice after it if timing needs.
module scenic_prefilter #(
    parameter int unsigned DATA_W = 512,
    parameter int unsigned CNT_W  = 32
) (
    input  logic                clk,
    input  logic                rst,

    input  logic                rdma_en,

    input  logic [DATA_W-1:0]   s_axis_tdata,
    input  logic [DATA_W/8-1:0] s_axis_tkeep,
    input  logic                s_axis_tvalid,
    output logic                s_axis_tready,
    input  logic                s_axis_tlast,

    output logic [DATA_W-1:0]   m_axis_rdma_tdata,
    output logic [DATA_W/8-1:0] m_axis_rdma_tkeep,
    output logic                m_axis_rdma_tvalid,
    input  logic                m_axis_rdma_tready,
    output logic                m_axis_rdma_tlast,

    output logic [DATA_W-1:0]   m_axis_host_tdata,
    output logic [DATA_W/8-1:0] m_axis_host_tkeep,
    output logic                m_axis_host_tvalid,
    input  logic                m_axis_host_tready,
    output logic                m_axis_host_tlast,
    output logic [1:0]          m_axis_host_tuser,   // class: 0 RoCE v2, 1 TCP, 2 other

    // frame counters, counted when the frame's last beat leaves (or is dropped); wrap around
    output logic [CNT_W-1:0]    stat_rdma_roce,
    output logic [CNT_W-1:0]    stat_host_roce,      // RoCE v2 while rdma_en was low
    output logic [CNT_W-1:0]    stat_host_tcp,
    output logic [CNT_W-1:0]    stat_host_other,
    output logic [CNT_W-1:0]    stat_drop_runt
);

  localparam int unsigned KEEP_W    = DATA_W / 8;
  localparam int unsigned HDR_BYTES = 82;
  localparam int unsigned HDR_BEATS = (HDR_BYTES + KEEP_W - 1) / KEEP_W;
  localparam int unsigned STORE     = (HDR_BEATS > 1) ? HDR_BEATS - 1 : 1;
  localparam int unsigned BEAT_W    = $clog2(HDR_BEATS + 1);
  localparam int unsigned ADDR_W    = $clog2(HDR_BEATS + 2);
  localparam int unsigned DEPTH     = 2 ** ADDR_W;

  // class codes (m_axis_host_tuser, decision FIFO)
  localparam logic [1:0] C_ROCE  = 2'd0;
  localparam logic [1:0] C_TCP   = 2'd1;
  localparam logic [1:0] C_OTHER = 2'd2;
  localparam logic [1:0] C_RUNT  = 2'd3;

  if (DATA_W < 64 || DATA_W > 1024 || (DATA_W & (DATA_W - 1)) != 0) begin : g_bad_data_w
    $error("DATA_W must be a power of two, 64..1024");
  end
  if (CNT_W < 1 || CNT_W > 64) begin : g_bad_cnt_w
    $error("CNT_W must be 1..64");
  end

  // ------------------------------------------------------------------ input side: classify
  logic              s_hs;
  logic [BEAT_W-1:0] in_beat_q;          // beat index in frame, saturates at HDR_BEATS
  logic [STORE*DATA_W-1:0] win_q;       // first HDR_BEATS-1 beats of the current frame
  logic [HDR_BYTES*8-1:0] hb;           // header bytes (byte o at [8*o +: 8])
  logic [15:0]       avail;              // frame bytes known to be present in the window
  logic [7:0]        keep_cnt;
  logic              decide;
  logic [1:0]        cls;

  assign s_hs = s_axis_tvalid & s_axis_tready;

  for (genvar o = 0; o < HDR_BYTES; o++) begin : g_hb
    localparam int unsigned BI = o / KEEP_W;   // beat holding header byte o
    localparam int unsigned LI = o % KEEP_W;   // its lane
    if (BI < HDR_BEATS - 1) begin : g_stored
      assign hb[8*o +: 8] = (BEAT_W'(BI) < in_beat_q) ? win_q[BI*DATA_W + LI*8 +: 8]
                                                : s_axis_tdata[LI*8 +: 8];
    end else begin : g_cur
      assign hb[8*o +: 8] = s_axis_tdata[LI*8 +: 8];
    end
  end

  always_comb begin
    keep_cnt = '0;
    for (int i = 0; i < KEEP_W; i++) begin
      keep_cnt = keep_cnt + 8'(s_axis_tkeep[i]);
    end
  end

  // bytes available: the whole frame if it ends in the window, else at least HDR_BYTES
  assign avail = s_axis_tlast ? 16'(in_beat_q) * 16'(KEEP_W) + 16'(keep_cnt)
                              : 16'(HDR_BYTES);

  assign decide = s_hs && (in_beat_q < BEAT_W'(HDR_BEATS)) &&
                  (s_axis_tlast || in_beat_q == BEAT_W'(HDR_BEATS - 1));

  // classification of the header window
  scenic_prefilter_class u_class (
      .hb   (hb),
      .avail(avail),
      .cls  (cls)
  );

  always_ff @(posedge clk) begin
    if (rst) begin
      in_beat_q <= '0;
    end else if (s_hs) begin
      if (s_axis_tlast) begin
        in_beat_q <= '0;
      end else if (in_beat_q != BEAT_W'(HDR_BEATS)) begin
        in_beat_q <= in_beat_q + 1'b1;
      end
    end
  end

  // header beats: datapath, not reset
  if (HDR_BEATS > 1) begin : g_store
    always_ff @(posedge clk) begin
      for (int j = 0; j < HDR_BEATS - 1; j++) begin
        if (s_hs && in_beat_q == BEAT_W'(j)) begin
          win_q[j*DATA_W +: DATA_W] <= s_axis_tdata;
        end
      end
    end
  end else begin : g_no_store
    // the whole header window is in the current beat: nothing to store
    logic unused_win_q;
    assign win_q = '0;
    assign unused_win_q = ^win_q;
  end

  // ------------------------------------------------------------------ FIFOs
  logic [DATA_W-1:0] mem_data [DEPTH];
  logic [KEEP_W-1:0] mem_keep [DEPTH];
  logic              mem_last [DEPTH];
  logic [2:0]        mem_dec  [DEPTH];   // {to_rdma, class}
  logic [ADDR_W:0]   wr_q, rd_q, dwr_q, drd_q;
  logic              pop, head_valid, drop, to_rdma;
  logic [1:0]        head_cls;

  assign s_axis_tready = (wr_q - rd_q) != (ADDR_W+1)'(DEPTH);

  always_ff @(posedge clk) begin
    if (s_hs) begin
      mem_data[wr_q[ADDR_W-1:0]] <= s_axis_tdata;
      mem_keep[wr_q[ADDR_W-1:0]] <= s_axis_tkeep;
      mem_last[wr_q[ADDR_W-1:0]] <= s_axis_tlast;
    end
    if (decide) begin
      mem_dec[dwr_q[ADDR_W-1:0]] <= {rdma_en && cls == C_ROCE, cls};
    end
  end

  assign head_valid = (wr_q != rd_q) && (dwr_q != drd_q);
  assign head_cls   = mem_dec[drd_q[ADDR_W-1:0]][1:0];
  assign to_rdma    = mem_dec[drd_q[ADDR_W-1:0]][2];
  assign drop       = head_cls == C_RUNT;

  always_comb begin
    pop = 1'b0;
    if (head_valid) begin
      unique case ({drop, to_rdma})
        2'b10, 2'b11: pop = 1'b1;
        2'b01:        pop = m_axis_rdma_tready;
        2'b00:        pop = m_axis_host_tready;
        default:      pop = 1'b0;
      endcase
    end
  end

  assign m_axis_rdma_tdata  = mem_data[rd_q[ADDR_W-1:0]];
  assign m_axis_rdma_tkeep  = mem_keep[rd_q[ADDR_W-1:0]];
  assign m_axis_rdma_tlast  = mem_last[rd_q[ADDR_W-1:0]];
  assign m_axis_rdma_tvalid = head_valid && !drop && to_rdma;
  assign m_axis_host_tdata  = mem_data[rd_q[ADDR_W-1:0]];
  assign m_axis_host_tkeep  = mem_keep[rd_q[ADDR_W-1:0]];
  assign m_axis_host_tlast  = mem_last[rd_q[ADDR_W-1:0]];
  assign m_axis_host_tvalid = head_valid && !drop && !to_rdma;
  assign m_axis_host_tuser  = head_cls;

  logic pop_last;
  assign pop_last = pop && mem_last[rd_q[ADDR_W-1:0]];

  always_ff @(posedge clk) begin
    if (rst) begin
      wr_q            <= '0;
      rd_q            <= '0;
      dwr_q           <= '0;
      drd_q           <= '0;
      stat_rdma_roce  <= '0;
      stat_host_roce  <= '0;
      stat_host_tcp   <= '0;
      stat_host_other <= '0;
      stat_drop_runt  <= '0;
    end else begin
      if (s_hs) wr_q <= wr_q + 1'b1;
      if (decide) dwr_q <= dwr_q + 1'b1;
      if (pop) rd_q <= rd_q + 1'b1;
      if (pop_last) begin
        drd_q <= drd_q + 1'b1;
        unique case (head_cls)
          C_RUNT:  stat_drop_runt <= stat_drop_runt + 1'b1;
          C_TCP:   stat_host_tcp <= stat_host_tcp + 1'b1;
          C_OTHER: stat_host_other <= stat_host_other + 1'b1;
          C_ROCE: begin
            if (to_rdma) stat_rdma_roce <= stat_rdma_roce + 1'b1;
            else         stat_host_roce <= stat_host_roce + 1'b1;
          end
          default: ;
        endcase
      end
    end
  end

`ifndef SYNTHESIS
  logic keep_contig;
  always_comb begin
    keep_contig = 1'b1;
    for (int i = 1; i < KEEP_W; i++) begin
      if (s_axis_tkeep[i] && !s_axis_tkeep[i-1]) keep_contig = 1'b0;
    end
  end
  always_ff @(posedge clk) begin
    if (!rst && s_axis_tvalid) begin
      assert (keep_contig) else $error("s_axis_tkeep not contiguous from lane 0");
      assert (s_axis_tlast || &s_axis_tkeep) else $error("partial tkeep on a non-last beat");
    end
    if (!rst) begin
      // the decision FIFO never holds more frames than the data FIFO holds beats
      assert ((dwr_q - drd_q) <= (wr_q - rd_q) + 1'b1) else $error("decision FIFO overrun");
    end
  end
`endif

endmodule
