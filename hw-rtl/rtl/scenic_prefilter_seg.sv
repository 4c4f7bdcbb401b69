// SPDX-License-Identifier: MIT
// Segmented network prefilter: the classifier and steering of scenic_prefilter on a segmented
// bus, so that the 1024-bit 200G configuration carries several frames per beat.
//
// Segmented bus: a beat of DATA_W bits is SEGS segments of SEG_W = DATA_W / SEGS bits (256 or
// 512). Each segment has its own valid, sop (a frame starts at its byte 0) and eop (a frame ends
// in it; tkeep lanes of the segment say how many bytes, contiguous from the segment's first
// lane). Frames always start at a segment boundary, segments are in order (segment 0 first), a
// frame's segments are consecutive valid segments (idle segments and beats with no valid segment
// may sit between them), and every segment except a frame's last one is full. At 1024 bits,
// 2 x 512 carries two 64-byte frames per beat but wastes up to 63 bytes per frame (65..79 and
// 129..130-byte frames stay below 200GbE); 4 x 256 wastes at most 31 and reaches 200GbE at every
// size (hw-rtl/README.md). A zero-length frame is a valid segment with sop, eop and no tkeep.
//
// Classification (scenic_prefilter_class, same rules as scenic_prefilter) needs the first 82
// bytes = HS segments (2 of 512 bits, 3 of 256): a frame is decided at its eop segment if that is
// among its first HS, else at its HS-th segment (same beat or a later one: its earlier segments
// are kept in win_q). Up to SEGS decisions per beat go into a decision FIFO (one entry per
// frame); beats wait in a DEPTH-entry FIFO until every frame they touch is decided. Outputs keep
// the input's segment layout: a beat leaves with each segment marked valid on the port its frame
// goes to (m_axis_*_tseg_valid), runt segments on neither; a beat whose segments go to both
// ports is offered on both and leaves when both have taken it (a port that took it early sees
// tvalid low until then). Steady state: one beat per cycle in and out.
//
// Outputs are not registered (FIFO read port); put a register slice after it if timing needs.
module scenic_prefilter_seg #(
    parameter int unsigned DATA_W = 1024,
    parameter int unsigned SEGS   = 2,
    parameter int unsigned CNT_W  = 32
) (
    input  logic                clk,
    input  logic                rst,

    input  logic                rdma_en,

    input  logic [DATA_W-1:0]   s_axis_tdata,
    input  logic [DATA_W/8-1:0] s_axis_tkeep,
    input  logic                s_axis_tvalid,
    output logic                s_axis_tready,
    input  logic [SEGS-1:0]     s_axis_tseg_valid,
    input  logic [SEGS-1:0]     s_axis_tseg_sop,
    input  logic [SEGS-1:0]     s_axis_tseg_eop,

    output logic [DATA_W-1:0]   m_axis_rdma_tdata,
    output logic [DATA_W/8-1:0] m_axis_rdma_tkeep,
    output logic                m_axis_rdma_tvalid,
    input  logic                m_axis_rdma_tready,
    output logic [SEGS-1:0]     m_axis_rdma_tseg_valid,
    output logic [SEGS-1:0]     m_axis_rdma_tseg_sop,
    output logic [SEGS-1:0]     m_axis_rdma_tseg_eop,

    output logic [DATA_W-1:0]   m_axis_host_tdata,
    output logic [DATA_W/8-1:0] m_axis_host_tkeep,
    output logic                m_axis_host_tvalid,
    input  logic                m_axis_host_tready,
    output logic [SEGS-1:0]     m_axis_host_tseg_valid,
    output logic [SEGS-1:0]     m_axis_host_tseg_sop,
    output logic [SEGS-1:0]     m_axis_host_tseg_eop,
    output logic [2*SEGS-1:0]   m_axis_host_tuser,   // class per segment: 0 RoCE v2, 1 TCP, 2 other

    // frame counters, counted when the frame's last segment leaves (or is dropped); wrap around
    output logic [CNT_W-1:0]    stat_rdma_roce,
    output logic [CNT_W-1:0]    stat_host_roce,      // RoCE v2 while rdma_en was low
    output logic [CNT_W-1:0]    stat_host_tcp,
    output logic [CNT_W-1:0]    stat_host_other,
    output logic [CNT_W-1:0]    stat_drop_runt
);

  localparam int unsigned KEEP_W    = DATA_W / 8;
  localparam int unsigned SEG_W     = DATA_W / SEGS;
  localparam int unsigned SEG_B     = SEG_W / 8;          // bytes per segment
  localparam int unsigned HDR_BYTES = 82;
  localparam int unsigned ADDR_W    = 2;                  // data FIFO: 4 beats
  localparam int unsigned DEPTH     = 2 ** ADDR_W;
  localparam int unsigned DADDR_W   = $clog2(DEPTH * SEGS + SEGS);
  localparam int unsigned DDEPTH    = 2 ** DADDR_W;       // one entry per frame in flight
  localparam int unsigned SCNT_W    = $clog2(SEGS + 1);
  localparam int unsigned HS        = (HDR_BYTES + SEG_B - 1) / SEG_B;  // header segments
  localparam int unsigned WIN_N     = HS - 1;
  localparam int unsigned IDX_W     = $clog2(HS + 1);

  localparam logic [1:0] C_ROCE  = 2'd0;
  localparam logic [1:0] C_TCP   = 2'd1;
  localparam logic [1:0] C_OTHER = 2'd2;
  localparam logic [1:0] C_RUNT  = 2'd3;

  if (SEGS < 2 || SEGS > 8 || (SEGS & (SEGS - 1)) != 0) begin : g_bad_segs
    $error("SEGS must be 2, 4 or 8 (one frame per beat: use scenic_prefilter)");
  end
  if ((DATA_W & (DATA_W - 1)) != 0 || SEG_B < 32 || SEG_B > 64) begin : g_bad_data_w
    $error("DATA_W must be a power of two with DATA_W / SEGS 256 or 512 (header in 2..3 segments)");
  end
  if (CNT_W < 1 || CNT_W > 64) begin : g_bad_cnt_w
    $error("CNT_W must be 1..64");
  end

  // ------------------------------------------------------------------ input side: classify
  logic                  s_hs, s_store;
  logic [IDX_W-1:0]      idx_q;          // segments of the current frame seen, saturating at HS
  logic [WIN_N*SEG_W-1:0] win_q;         // its first HS-1 segments (datapath, not reset)
  logic [IDX_W-1:0]      idx_d;
  logic [WIN_N*SEG_W-1:0] win_d;
  logic [SEGS*IDX_W-1:0] idx;            // segment s's index in its frame, [s*IDX_W +: IDX_W]
  logic [SEGS*WIN_N*SEG_W-1:0] win;      // its frame's earlier header segments, per segment
  logic [SEGS-1:0]       decide;
  logic [2*SEGS-1:0]     cls;            // class decided at segment s, [2*s +: 2]

  assign s_hs = s_axis_tvalid & s_axis_tready;

  // walk the segments in order: each one's index in its frame, who is decided
  always_comb begin
    logic [IDX_W-1:0]       i;
    logic [WIN_N*SEG_W-1:0] w;
    i = idx_q;
    w = win_q;
    for (int s = 0; s < SEGS; s++) begin
      idx[s*IDX_W +: IDX_W]    = s_axis_tseg_sop[s] ? '0 : i;
      win[s*WIN_N*SEG_W +: WIN_N*SEG_W] = w;
      decide[s] = 1'b0;
      if (s_hs && s_axis_tseg_valid[s]) begin
        decide[s] = idx[s*IDX_W +: IDX_W] < IDX_W'(HS) && (s_axis_tseg_eop[s] || idx[s*IDX_W +: IDX_W] == IDX_W'(HS - 1));
        for (int k = 0; k < WIN_N; k++) begin
          if (idx[s*IDX_W +: IDX_W] == IDX_W'(k)) w[k*SEG_W +: SEG_W] = s_axis_tdata[s*SEG_W +: SEG_W];
        end
        if (s_axis_tseg_eop[s]) begin
          i = '0;
        end else if (idx[s*IDX_W +: IDX_W] != IDX_W'(HS)) begin
          i = idx[s*IDX_W +: IDX_W] + 1'b1;
        end else begin
          i = idx[s*IDX_W +: IDX_W];
        end
      end
    end
    idx_d = i;
    win_d = w;
  end

  for (genvar s = 0; s < SEGS; s++) begin : g_cls
    logic [HDR_BYTES*8-1:0] hb;
    logic [15:0]            avail;
    logic [7:0]             keep_cnt;

    // header byte o: from an earlier segment of the frame, this one, or beyond the frame (0)
    for (genvar o = 0; o < HDR_BYTES; o++) begin : g_hb
      localparam int unsigned BI = o / SEG_B;
      localparam int unsigned LI = o % SEG_B;
      if (BI < HS - 1) begin : g_win
        assign hb[8*o +: 8] = (IDX_W'(BI) < idx[s*IDX_W +: IDX_W]) ? win[(s*WIN_N + BI)*SEG_W + 8*LI +: 8]
                            : (IDX_W'(BI) == idx[s*IDX_W +: IDX_W]) ? s_axis_tdata[s*SEG_W + 8*LI +: 8] : 8'd0;
      end else begin : g_cur
        assign hb[8*o +: 8] = (IDX_W'(BI) == idx[s*IDX_W +: IDX_W]) ? s_axis_tdata[s*SEG_W + 8*LI +: 8] : 8'd0;
      end
    end

    always_comb begin
      keep_cnt = '0;
      for (int i = 0; i < SEG_B; i++) begin
        keep_cnt = keep_cnt + 8'(s_axis_tkeep[s*SEG_B + i]);
      end
    end

    // a frame decided before its HS-th segment ends in this one: its length is known
    assign avail = s_axis_tseg_eop[s] ? 16'(idx[s*IDX_W +: IDX_W]) * 16'(SEG_B) + 16'(keep_cnt)
                                      : 16'(HDR_BYTES);

    scenic_prefilter_class u_class (
        .hb   (hb),
        .avail(avail),
        .cls  (cls[2*s +: 2])
    );
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      idx_q <= '0;
    end else begin
      idx_q <= idx_d;
    end
  end

  always_ff @(posedge clk) begin
    if (s_hs) win_q <= win_d;
  end

  // ------------------------------------------------------------------ FIFOs
  logic [DATA_W-1:0]     mem_data [DEPTH];
  logic [KEEP_W-1:0]     mem_keep [DEPTH];
  logic [SEGS-1:0]       mem_sv   [DEPTH];
  logic [SEGS-1:0]       mem_sop  [DEPTH];
  logic [SEGS-1:0]       mem_eop  [DEPTH];
  logic [2:0]            mem_dec  [DDEPTH];   // {to_rdma, class}
  logic [ADDR_W:0]       wr_q, rd_q;
  logic [DADDR_W:0]      dwr_q, drd_q;
  logic [SEGS*(DADDR_W+1)-1:0] dwa;          // write address of segment s's decision
  logic [SCNT_W-1:0]     n_dec;

  assign s_axis_tready = (wr_q - rd_q) != (ADDR_W+1)'(DEPTH);
  // a beat without a valid segment is accepted and not stored: stored beats all carry frame
  // data, so a frame's deciding segment is at most HS-1 stored beats behind its first one
  assign s_store = s_hs && (|s_axis_tseg_valid);

  always_comb begin
    n_dec = '0;
    for (int s = 0; s < SEGS; s++) begin
      dwa[s*(DADDR_W+1) +: DADDR_W+1] = dwr_q + (DADDR_W+1)'(n_dec);
      n_dec  = n_dec + SCNT_W'(decide[s]);
    end
  end

  always_ff @(posedge clk) begin
    if (s_store) begin
      mem_data[wr_q[ADDR_W-1:0]] <= s_axis_tdata;
      mem_keep[wr_q[ADDR_W-1:0]] <= s_axis_tkeep;
      mem_sv[wr_q[ADDR_W-1:0]]   <= s_axis_tseg_valid;
      mem_sop[wr_q[ADDR_W-1:0]]  <= s_axis_tseg_sop;
      mem_eop[wr_q[ADDR_W-1:0]]  <= s_axis_tseg_eop;
    end
    for (int s = 0; s < SEGS; s++) begin
      if (decide[s]) begin
        mem_dec[dwa[s*(DADDR_W+1) +: DADDR_W]] <= {rdma_en && cls[2*s +: 2] == C_ROCE, cls[2*s +: 2]};
      end
    end
  end

  // head beat: the frame of each segment (index from the decision FIFO's head)
  logic [SEGS-1:0]       h_sv, h_sop, h_eop, to_rdma, to_host, drop;
  logic [2*SEGS-1:0]     h_cls;
  logic [SCNT_W:0]       need;               // frames the head beat touches
  logic [SCNT_W-1:0]     n_eop;
  logic                  h_cont;             // the head beat starts inside a frame
  logic                  head_ok, pop, done_rdma_q, done_host_q;

  assign h_sv  = mem_sv[rd_q[ADDR_W-1:0]];
  assign h_sop = mem_sop[rd_q[ADDR_W-1:0]];
  assign h_eop = mem_eop[rd_q[ADDR_W-1:0]];

  always_comb begin
    logic [SCNT_W:0]  fi;
    logic             seen;
    logic [2:0]       d;
    h_cont = 1'b0;
    seen   = 1'b0;
    fi     = '0;
    need   = '0;
    n_eop  = '0;
    d      = '0;
    for (int s = 0; s < SEGS; s++) begin
      to_rdma[s] = 1'b0;
      to_host[s] = 1'b0;
      drop[s]    = 1'b0;
      h_cls[2*s +: 2] = C_OTHER;
      if (h_sv[s]) begin
        if (!seen) begin
          h_cont = !h_sop[s];
          fi     = '0;
        end else if (h_sop[s]) begin
          fi = fi + 1'b1;
        end
        seen       = 1'b1;
        need       = fi + 1'b1;
        d          = mem_dec[DADDR_W'(drd_q + (DADDR_W+1)'(fi))];
        h_cls[2*s +: 2] = d[1:0];
        drop[s]    = d[1:0] == C_RUNT;
        to_rdma[s] = !drop[s] && d[2];
        to_host[s] = !drop[s] && !d[2];
        n_eop      = n_eop + SCNT_W'(h_eop[s]);
      end
    end
  end

  assign head_ok = (wr_q != rd_q) && (dwr_q - drd_q) >= (DADDR_W+1)'(need);

  assign m_axis_rdma_tdata      = mem_data[rd_q[ADDR_W-1:0]];
  assign m_axis_rdma_tkeep      = mem_keep[rd_q[ADDR_W-1:0]];
  assign m_axis_rdma_tseg_valid = to_rdma;
  assign m_axis_rdma_tseg_sop   = h_sop & to_rdma;
  assign m_axis_rdma_tseg_eop   = h_eop & to_rdma;
  assign m_axis_rdma_tvalid     = head_ok && (|to_rdma) && !done_rdma_q;
  assign m_axis_host_tdata      = mem_data[rd_q[ADDR_W-1:0]];
  assign m_axis_host_tkeep      = mem_keep[rd_q[ADDR_W-1:0]];
  assign m_axis_host_tseg_valid = to_host;
  assign m_axis_host_tseg_sop   = h_sop & to_host;
  assign m_axis_host_tseg_eop   = h_eop & to_host;
  assign m_axis_host_tvalid     = head_ok && (|to_host) && !done_host_q;
  assign m_axis_host_tuser      = h_cls;

  assign pop = head_ok && (!(|to_rdma) || done_rdma_q || m_axis_rdma_tready) &&
               (!(|to_host) || done_host_q || m_axis_host_tready);

  // per-class counts of the frames whose last segment leaves with this pop
  logic [SCNT_W-1:0] n_rdma_roce, n_host_roce, n_host_tcp, n_host_other, n_runt;
  always_comb begin
    n_rdma_roce  = '0;
    n_host_roce  = '0;
    n_host_tcp   = '0;
    n_host_other = '0;
    n_runt       = '0;
    for (int s = 0; s < SEGS; s++) begin
      if (h_sv[s] && h_eop[s]) begin
        unique case (h_cls[2*s +: 2])
          C_RUNT:  n_runt = n_runt + 1'b1;
          C_TCP:   n_host_tcp = n_host_tcp + 1'b1;
          C_OTHER: n_host_other = n_host_other + 1'b1;
          C_ROCE: begin
            if (to_rdma[s]) n_rdma_roce = n_rdma_roce + 1'b1;
            else            n_host_roce = n_host_roce + 1'b1;
          end
          default: ;
        endcase
      end
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      wr_q            <= '0;
      rd_q            <= '0;
      dwr_q           <= '0;
      drd_q           <= '0;
      done_rdma_q     <= 1'b0;
      done_host_q     <= 1'b0;
      stat_rdma_roce  <= '0;
      stat_host_roce  <= '0;
      stat_host_tcp   <= '0;
      stat_host_other <= '0;
      stat_drop_runt  <= '0;
    end else begin
      if (s_store) wr_q <= wr_q + 1'b1;
      dwr_q <= dwr_q + (DADDR_W+1)'(n_dec);
      if (pop) begin
        rd_q            <= rd_q + 1'b1;
        drd_q           <= drd_q + (DADDR_W+1)'(n_eop);
        done_rdma_q     <= 1'b0;
        done_host_q     <= 1'b0;
        stat_rdma_roce  <= stat_rdma_roce + CNT_W'(n_rdma_roce);
        stat_host_roce  <= stat_host_roce + CNT_W'(n_host_roce);
        stat_host_tcp   <= stat_host_tcp + CNT_W'(n_host_tcp);
        stat_host_other <= stat_host_other + CNT_W'(n_host_other);
        stat_drop_runt  <= stat_drop_runt + CNT_W'(n_runt);
      end else begin
        if (m_axis_rdma_tvalid && m_axis_rdma_tready) done_rdma_q <= 1'b1;
        if (m_axis_host_tvalid && m_axis_host_tready) done_host_q <= 1'b1;
      end
    end
  end

`ifndef SYNTHESIS
  logic [SEGS-1:0] keep_contig, keep_full;
  logic            h_unused;
  assign h_unused = h_cont;
  always_comb begin
    for (int s = 0; s < SEGS; s++) begin
      keep_contig[s] = 1'b1;
      keep_full[s]   = &s_axis_tkeep[s*SEG_B +: SEG_B];
      for (int i = 1; i < SEG_B; i++) begin
        if (s_axis_tkeep[s*SEG_B + i] && !s_axis_tkeep[s*SEG_B + i - 1]) keep_contig[s] = 1'b0;
      end
    end
  end
  always_ff @(posedge clk) begin
    if (!rst && s_axis_tvalid) begin
      for (int s = 0; s < SEGS; s++) begin
        if (s_axis_tseg_valid[s]) begin
          assert (keep_contig[s]) else $error("segment %0d: tkeep not contiguous", s);
          assert (s_axis_tseg_eop[s] || keep_full[s]) else
            $error("segment %0d: partial tkeep without eop", s);
        end
      end
    end
    if (!rst) begin
      assert ((dwr_q - drd_q) <= (DADDR_W+1)'(DDEPTH)) else $error("decision FIFO overrun");
    end
  end
`else
  logic h_unused;
  assign h_unused = h_cont;
`endif

endmodule
