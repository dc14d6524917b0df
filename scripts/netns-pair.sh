# Two network namespaces joined by a veth pair, and a Wi-Fi-like shape for it: sourced by scripts/netns-fastlane.sh
# (make test-lane) and bench/lane.sh (make bench-lane), which use their own names so they can run side by side.
# Needs root (ip netns, tc) and nft where the kernel has no sch_netem.

# netns_pair TAG SUBNET WHO: namespaces hofl-TAGa and hofl-TAGb ($A, $B) with veth ends hofl-TAGva and hofl-TAGvb
# ($DEV_A, $DEV_B) at SUBNET.1 and SUBNET.2/24, removed on exit; WHO names the caller in errors.
netns_pair() {
    local tag=$1 subnet=$2 who=$3
    A=hofl-${tag}a B=hofl-${tag}b DEV_A=hofl-${tag}va DEV_B=hofl-${tag}vb
    trap netns_pair_remove EXIT
    netns_pair_remove
    ip netns add "$A"
    ip netns add "$B"
    ip link add "$DEV_A" netns "$A" type veth peer name "$DEV_B" netns "$B"
    ip -n "$A" addr add "$subnet.1/24" dev "$DEV_A"
    ip -n "$B" addr add "$subnet.2/24" dev "$DEV_B"
    ip -n "$A" link set "$DEV_A" up
    ip -n "$B" link set "$DEV_B" up
    ip -n "$A" link set lo up
    ip -n "$B" link set lo up
    # The veth carries traffic once both ends are up (LOWER_UP): an offer made before lists no address.
    local _
    for _ in $(seq 50); do netns_pair_linked && return 0; sleep 0.1; done
    echo "$who: the veth pair never came up" >&2
    exit 1
}

netns_pair_linked() {
    ip -n "$A" -o link show "$DEV_A" | grep -q LOWER_UP && ip -n "$B" -o link show "$DEV_B" | grep -q LOWER_UP
}

netns_pair_remove() {
    ip netns del "$A" 2>/dev/null || true
    ip netns del "$B" 2>/dev/null || true
}

# netns_gigabit on|off: both ends of the veth shaped like a wired gigabit LAN (tbf 1gbit), bench-lane's third link:
# the two machines' link, not one host's CPU, sets the pace there, as between two real machines.
netns_gigabit() {
    local ns dev pair
    for pair in "$A $DEV_A" "$B $DEV_B"; do
        read -r ns dev <<<"$pair"
        if [[ $1 == on ]]; then
            tc -n "$ns" qdisc add dev "$dev" root tbf rate 1gbit burst 512kb latency 20ms
        else
            tc -n "$ns" qdisc del dev "$dev" root 2>/dev/null || true
        fi
    done
}

# netns_wifi_like on|off WHO: a link shaped like Wi-Fi on both ends, netem delay 5ms loss 0.5% rate 50mbit. A kernel
# without sch_netem (CONFIG_NET_SCH_NETEM unset, as on some CI hosts) gets what it has: tbf at 50mbit and nftables
# dropping 0.5% of TCP packets at random, and no delay; $WIFI_LIKE says which.
netns_wifi_like() {
    local ns dev pair
    for pair in "$A $DEV_A" "$B $DEV_B"; do
        read -r ns dev <<<"$pair"
        if [[ $1 == on ]]; then
            if tc -n "$ns" qdisc add dev "$dev" root netem delay 5ms loss 0.5% rate 50mbit 2>/dev/null; then
                WIFI_LIKE="netem delay 5ms loss 0.5% rate 50mbit"
            else
                command -v nft >/dev/null || { echo "$2: no sch_netem and no nft (nftables)" >&2; exit 1; }
                tc -n "$ns" qdisc add dev "$dev" root tbf rate 50mbit burst 64kb latency 50ms
                ip netns exec "$ns" nft add table inet hofl
                ip netns exec "$ns" nft add chain inet hofl out '{ type filter hook output priority 0; }'
                ip netns exec "$ns" nft add rule inet hofl out meta l4proto tcp numgen random mod 1000 '<' 5 drop
                WIFI_LIKE="no sch_netem in this kernel: tbf rate 50mbit, nft loss 0.5%, no delay"
            fi
        else
            tc -n "$ns" qdisc del dev "$dev" root 2>/dev/null || true
            ip netns exec "$ns" nft delete table inet hofl 2>/dev/null || true
        fi
    done
}
