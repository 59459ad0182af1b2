# bash completion for nopctl
_nopctl() {
	local cur prev words cword
	_init_completion -n : || return
	local cmds="trace graph catch why stats top record report diff list status reset doctor inspect blackbox help"
	if [[ $cword -eq 1 ]]; then
		COMPREPLY=($(compgen -W "$cmds --version --help" -- "$cur"))
		return
	fi
	local cmd=${words[1]} opts
	case $cmd in
	trace) opts="--event --filter --pid --module --notrace --duration --count --buffer-kb --cpus --stack --output --overwrite --format --json --quiet --user --top-level --force --retval --args --errors --help" ;;
	graph) opts="--event --filter --pid --module --notrace --duration --count --buffer-kb --cpus --output --overwrite --format --json --quiet --user --top-level --force --depth --threshold --retval --args --errors --no-sleep-time --no-irqs --help" ;;
	catch) opts="--event --filter --slower-than --errors --outliers --before --pid --module --notrace --duration --count --buffer-kb --cpus --output --overwrite --format --json --quiet --user --top-level --force --depth --threshold --retval --args --no-sleep-time --no-irqs --compression --help" ;;
	why) opts="--event --filter --pid --module --notrace --duration --count --buffer-kb --cpus --output --overwrite --format --json --quiet --user --top-level --force --args --no-irqs --help" ;;
	stats) opts="--callers --event --filter --pid --module --notrace --duration --count --buffer-kb --cpus --output --overwrite --format --json --quiet --user --top-level --force --depth --threshold --retval --no-sleep-time --no-irqs --sort --hist --interval --help" ;;
	top) opts="--event --filter --pid --module --notrace --duration --count --buffer-kb --cpus --format --json --quiet --user --top-level --force --depth --threshold --retval --no-sleep-time --no-irqs --sort --interval --help" ;;
	record) opts="--event --filter --output --overwrite --graph --pid --module --notrace --duration --count --buffer-kb --cpus --stack --quiet --user --top-level --force --depth --threshold --retval --args --no-sleep-time --no-irqs --max-size --rotate --split --compression --help" ;;
	report) opts="--callers --format --json --output --overwrite --quiet --count --stats --sort --hist --errors --help" ;;
	diff) opts="--format --json --output --overwrite --quiet --all --alpha --min-change --help" ;;
	list) opts="--module --format --json --help" ;;
	status) opts="--format --json --help" ;;
	reset) opts="--format --json --quiet --help" ;;
	doctor) opts="--format --json --help" ;;
	inspect) opts="--format --json --help" ;;
	blackbox) opts="--pid --module --notrace --count --output --overwrite --format --json --quiet --errors --sort --hist --graph --stats --force --callers --save --help"
		[[ $cword -eq 2 ]] && { COMPREPLY=($(compgen -W "arm disarm status show" -- "$cur")); return; } ;;
	help) COMPREPLY=($(compgen -W "$cmds" -- "$cur")); return ;;
	*) return ;;
	esac
	case $prev in
	-p | --pid) COMPREPLY=($(compgen -W "$(command ls /proc | grep '^[0-9]')" -- "$cur")); return ;;
	-o | --output | --save) _filedir; return ;;
	-F | --format)
		if [[ $cmd == graph || $cmd == catch || $cmd == why || $cmd == report || $cmd == blackbox ]]; then COMPREPLY=($(compgen -W "text json folded dot chrome" -- "$cur"))
		elif [[ $cmd == stats ]]; then COMPREPLY=($(compgen -W "text json folded" -- "$cur"))
		elif [[ $cmd == diff ]]; then COMPREPLY=($(compgen -W "text json folded svg" -- "$cur"))
		else COMPREPLY=($(compgen -W "text json" -- "$cur")); fi
		return ;;
	--sort) COMPREPLY=($(compgen -W "total self calls avg max name" -- "$cur")); return ;;
	--compression) COMPREPLY=($(compgen -W "zstd none" -- "$cur")); return ;;
	--hist) [[ ${#cur} -ge 2 ]] && COMPREPLY=($(nopctl list "$cur*" 2>/dev/null | cut -d' ' -f1 | head -n 500)); return ;;
	-D | --depth | -t | --threshold | --slower-than | --before | --filter | --alpha | --min-change) return ;;
	-e | --event) COMPREPLY=($(compgen -W "$(cat /sys/kernel/tracing/available_events 2>/dev/null)" -- "$cur"))
		__ltrim_colon_completions "$cur"; return ;;
	-m | --module) COMPREPLY=($(compgen -W "$(cut -d' ' -f1 /proc/modules 2>/dev/null)" -- "$cur")); return ;;
	-d | --duration | -c | --count | -b | --buffer-kb | -C | --cpus | -i | --interval | --max-size | --rotate | --split) return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	elif [[ $cmd == report || $cmd == diff ]]; then
		_filedir
	elif [[ $cmd == trace || $cmd == graph || $cmd == catch || $cmd == why || $cmd == stats || $cmd == top || $cmd == record || $cmd == list || $cmd == doctor || $cmd == inspect || $prev == -n || $prev == --notrace ]]; then
		[[ ${#cur} -ge 2 ]] || return
		COMPREPLY=($(nopctl list "$cur*" 2>/dev/null | cut -d' ' -f1 | head -n 500))
	fi
}
complete -F _nopctl nopctl
