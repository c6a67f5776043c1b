# Shared by the load scripts (source it): the CPU time a server process
# uses, for CPU µs a stored view.

# watch_cpu PID FILE keeps FILE holding the CPU time PID has used (user
# and system, in clock ticks), read every tenth of a second until it
# exits; run it in the background.
watch_cpu() {
	local stat
	while stat=$(cat "/proc/$1/stat" 2>/dev/null); do
		# The fields after the command's closing parenthesis: utime and
		# stime are the 12th and 13th of them.
		echo "${stat##*) }" | awk '{print $12 + $13}' >"$2.new" && mv "$2.new" "$2"
		sleep 0.1
	done
}

# cpu_per_view FILE VIEWS is the CPU µs a view of the ticks in FILE.
cpu_per_view() {
	echo "$(cat "$1") * 1000000 / $(getconf CLK_TCK) / $2" | bc
}
