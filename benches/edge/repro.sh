#!/usr/bin/env bash
# Reproduces issue 17's file and message defects with one tenor binary ($1), one line each
# (docs/results/edge-load-2026-12-01.md). Needs the shared folder (TENOR_SHARED or ../shared).
T=$(realpath "$1"); SH_DIR=$(dirname "$0"); W=$(mktemp -d)
SH=$(cd "${TENOR_SHARED:-$SH_DIR/../../../shared}" && pwd)
cd "$W"
H="id,kind,type,spot,strike,maturity,rate,dividend,vol"
printf "$H\ng1,european,call,100,100,1,0.05,0,0.2\n" > in.csv
ln in.csv link.csv
$T price --portfolio in.csv --out link.csv >/dev/null 2>e1; echo "hardlink: exit $? input_lines=$(wc -l < in.csv) $(head -c 120 e1)"
$T price --portfolio missing.csv --out no/such/out.csv >/dev/null 2>e2; echo "out-first: $(head -c 150 e2)"
printf "$H\nb1,european,call,abc,100,1,0.05,0,0.2\n" > bad.csv; echo "earlier" > old.csv
$T price --portfolio bad.csv --out old.csv >o3 2>e3; echo "nothing-priced: old.csv now: $(head -c 60 old.csv | tr '\n' '|') ; stderr: $(tail -1 e3)"
printf "$H,caf\xe9\ng1,european,call,100,100,1,0.05,0,0.2,x\n" > hdr.csv
$T price --portfolio hdr.csv --out hdr.out >o4 2>e4; echo "header-byte: $(grep portfolio o4) | $(tail -1 e4)"
printf "$H\r\nb1,european,call,abc,100,1,0.05,0,0.2\r\ng1,european,call,100,100,1,0.05,0,0.2\r\n" > crlf.csv
$T price --portfolio crlf.csv --out crlf.out >o5 2>e5; echo "crlf: $(grep '^error: crlf' e5 | head -2 | tr '\n' '|')"
tr '\n' '\r' < <(printf "$H\nb1,european,call,abc,100,1,0.05,0,0.2\ng1,european,call,100,100,1,0.05,0,0.2\nb2,european,call,x,100,1,0.05,0,0.2\n") > cr.csv
$T price --portfolio cr.csv --out cr.out >o6 2>e6; echo "cr: $(grep '^error: cr' e6 | head -3 | tr '\n' '|')"
python3 -c "print('$H'); print('b1,european,call,' + '9'*10_000_000 + ',100,1,0.05,0,0.2')" > big.csv
$T price --portfolio big.csv --out big.out >/dev/null 2>e7; echo "big-cell: stderr bytes $(wc -c < e7)"
printf "date,open,high,low,close,volume,dividend,split\n2020-01-02,1,2,0.5,1.5,10,0,1\n2020-01-03,1,2,0.5,1\xff,10,0,1\n" > bars.csv
$T backtest --strategy buy_and_hold --data bars.csv --out bt >/dev/null 2>e8; echo "bars-utf8: $(head -c 200 e8)"
printf "time_ns,op,bytes,stream,job,block,thread\n0,alloc,256,0,0,1,0\n1,fr\xffee,256,0,0,1,0\n" > tr.csv
$T alloc profile --trace tr.csv --out al >/dev/null 2>e9; echo "trace-utf8: $(head -c 200 e9)"
head -6 $SH/data/options/spx_cboe_2025-10-01/spx_quotedata-3.csv > cb.csv; printf "Thu Jun 18 2026,SPX\xa0\n" >> cb.csv
$T surface cb.csv --out sf >/dev/null 2>e10; echo "cboe-utf8: $(head -c 200 e10)"
head -7 $SH/data/options/spx_cboe_2025-10-01/spx_quotedata-3.csv > cb3.csv
$T surface cb3.csv --out sf3 >/dev/null 2>e11; echo "no-slice: $(tail -1 e11 | head -c 200)"
$T surface $SH/data/options/spx_cboe_2025-10-01/spx_quotedata-3.csv --out pipe 2>/dev/null | head -0; echo "surface|head: $(ls pipe 2>/dev/null | tr '\n' ' ')"
$T alloc profile --out a1 >/dev/null 2>&1; $T alloc profile --out a2 >/dev/null 2>&1; cmp -s a1/size_histogram.svg a2/size_histogram.svg && echo "alloc-svg: identical" || echo "alloc-svg: differ"
rm -rf $W
