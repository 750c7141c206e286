# test_repeat.sh - a repeated prediction costs nothing twice
#
# EPCM's chain after an open overlaps the chain after the open before it:
# trained on A B C D X, the open of A predicts B, C and D (the next three
# events), and the open of B that follows predicts C and D again for the
# same events.  The model tells the worker only what is news
# (ppf_model_event_new()): C and D are not predicted again at all, so they
# cost no second plan entry, handle decode or readahead call, while the
# file the chain adds is acted on as before.  And a file whose pages are
# read by one pacing pass in several chunks is decoded once for all of
# them.  And where the cache holds everything predicted, the worker asks
# the model for fewer files, until something is not cached.
. /ppf/guest/lib.sh

plan 12
mount_data /mnt || bail "mount"
load_ppf || bail "insmod"
cd /mnt
hold B C D X G Q
trained_cold

T=/sys/kernel/tracing
echo 1 > $T/events/predictive_prefetch/enable
echo > $T/trace
cat A > /dev/null
settle
premise "after A, C and D were read ahead (the chain names them)" \
	eq "$(resident_kb C)$(resident_kb D)" 256256
ino_id() {	# the model id of the file with inode $1, from the trace
	grep -o "ppf_prefetch: dev=[0-9:]* ino=$1 id=[0-9]*" $T/trace | head -1 | sed 's/.*id=//'
}
idC=$(ino_id "$(stat -c %i C)")
idD=$(ino_id "$(stat -c %i D)")
premise "the trace names C's and D's ids" test -n "$idC" -a -n "$idD"

rep0=$(stat_of predictions_repeated) dec0=$(looks)
iss0=$(stat_of prefetch_issued) pred0=$(stat_of predictions)
echo > $T/trace
cat B > /dev/null
settle
echo 0 > $T/events/predictive_prefetch/enable
trace=$(grep -v "^#" $T/trace)
rep=$(($(stat_of predictions_repeated) - rep0)) dec=$(($(looks) - dec0))
iss=$(($(stat_of prefetch_issued) - iss0)) pred=$(($(stat_of predictions) - pred0))
echo "after B: $pred predictions, $rep repeated, $dec looks, $iss prefetches started"
idX=$(echo "$trace" | grep -o "ppf_prediction: after=[0-9]* id=[0-9]*" | sed 's/.*id=//' | sort -u)
echo "after B, predicted: $(echo $idX)"
check "repeat: the model does not name C or D again (they stand)" \
	eval '! echo "$trace" | grep -Eq "ppf_prediction: after=[0-9]* id=($idC|$idD) "'
check "repeat: the model names what its chain adds" test -n "$idX"
check "repeat: no readahead decision on C again" \
	eval '! echo "$trace" | grep -Eq "ppf_(prefetch: .* id=$idC |prefetch_skip: id=$idC )"'
check "repeat: no readahead decision on D again" \
	eval '! echo "$trace" | grep -Eq "ppf_(prefetch: .* id=$idD |prefetch_skip: id=$idD )"'
check "repeat: no look at a repeat (at most one per prediction not repeated)" \
	le "$dec" $((pred - rep))
check "repeat: what the new chain adds is still read ahead" eq "$(resident_kb X)" 256

# One pacing pass, several chunks of one file, one decode: trained on
# P G Q, the open of P predicts G (1 MiB: four 256 KiB chunks) and Q, and
# one pass reads G's first chunk, then Q (expected next after it), then
# the rest of G.  Each file the pass looks at (a readahead started or a
# skip traced) takes one look, a decode or its inode's, whatever its
# number of chunks.
set_ppf reset 1
for i in 1 2 3 4 5; do cat P G Q > /dev/null; done
settle
drop_caches
dec0=$(looks)
echo 1 > $T/events/predictive_prefetch/enable
echo > $T/trace
cat P > /dev/null
settle
echo 0 > $T/events/predictive_prefetch/enable
dec=$(($(looks) - dec0))
# (a prediction of P itself, skipped as opening, is not looked at)
looked=$(grep -v "reason=opening" $T/trace |
	grep -oE "ppf_prefetch(_skip)?: (dev=[0-9:]* ino=[0-9]* )?id=[0-9]*" |
	sed 's/.*id=//' | sort -u | wc -l)
chunks=$(grep -c "ppf_prefetch: dev=[0-9:]* ino=$(stat -c %i G) " $T/trace)
echo "after P: $dec looks, $looked files looked at, G in $chunks chunks, G $(resident_kb G) KiB"
premise "G was read ahead in its four chunks" eq "$chunks $(resident_kb G)" "4 1024"
check "chunks: one look per file looked at, not per chunk" eq "$dec" "$looked"

# A hot cache asks for less (lookahead.c): after 32 opens that read
# nothing ahead, planned nothing, removed nothing from any page cache and
# most of which the model did not expect, each open asks the model for 4
# files, not 16 (opens_hot).  H1 to H24 are written here, so they are all
# cached, and opened in another order each pass, so that the model is
# surprised.  Anything removed from a page cache ends it at once: after
# the caches are dropped, the first open of K1 to K24, a chain trained
# first, predicts 16 files ahead again, K12 among them.  Over passes of
# K1 to K24 themselves, all cached but in the order learnt, the depth
# stays.  (All are learnt at once: skip_new_files_ms 0.)
set_ppf reset 1
set_ppf skip_new_files_ms 0
hot="" chain=""
for i in $(seq 1 24); do
	dd if=/dev/zero of=H$i bs=4k count=1 2>/dev/null
	dd if=/dev/zero of=K$i bs=4k count=1 2>/dev/null
	hot="$hot H$i"
	chain="$chain K$i"
done
sync
shuffled() {	# the files of $hot in the order of seed $1
	for f in $hot; do
		echo "$f"
	done | awk -v s="$1" 'BEGIN { srand(s) } { print rand(), $0 }' |
		sort -n | cut -d' ' -f2
}
for i in 1 2 3 4 5; do
	cat $chain > /dev/null
done
settle 0
h0=$(stat_of opens_hot)
cat $chain $chain > /dev/null
settle 0
check "hot: not where the model expects the opens, though all is cached" \
	eq "$(($(stat_of opens_hot) - h0))" 0
for i in 1 2 3 4 5 6; do
	cat $(shuffled $i) > /dev/null
	settle 0
done
h0=$(stat_of opens_hot) s0=$(stat_of model_surprises)
echo 1 > $T/events/predictive_prefetch/ppf_prediction/enable
echo > $T/trace
cat $(shuffled 7) > /dev/null
settle 0
echo 0 > $T/events/predictive_prefetch/ppf_prediction/enable
premise "hot: the model did not expect most of a pass in a new order" \
	ge "$(($(stat_of model_surprises) - s0))" 16
# The opens whose predictions reached past 4 ahead: at most one, the
# probe every 64th open makes at the full lookahead.
far=$(grep -o "ppf_prediction: after=[0-9]* .* lead=[0-9]*" $T/trace |
	awk '{ split($NF, l, "="); if (l[2] > 4) print $2 }' | sort -u | wc -l)
echo "hot: $(($(stat_of opens_hot) - h0)) of 24 opens at the hot depth; $far predicted past 4 ahead"
check "hot: opens in a cache holding everything predicted ask for 4 files" \
	eval '[ $(($(stat_of opens_hot) - h0)) -ge 16 ] && [ "$far" -le 1 ]'
drop_caches
cat K1 > /dev/null
settle
check "hot: ended by the caches dropped, the 12th file is read ahead after the first" \
	eq "$(resident_kb K12)" 4
rm -f $hot $chain

finish_unloaded
