package shellcmd

import "strings"

// The program-knowledge table: for each program whose options some part of
// agent-shell reads, which options take a value (short and long), which
// short options cluster, and what Canonical needs to rewrite them (short
// equivalents of long options, aliases). Canonicalization (Canonical),
// unwrapping (the wrappers' scan), the effects (policy) and the guard
// (policy/guard, through Split) all read their programs' options here, so
// that they agree on which words are operands: a wrong arity makes an
// operand look like an option's value, or the reverse.
//
// The entries are plain values and the lookups switches, so that nothing
// is built at package initialisation (every hook call is a process start).

// Options describes one program's options, the way getopt_long (or git's
// parse-options) reads them.
type Options struct {
	flags string // short options without a value; they cluster (-rf)
	args  string // short options with a value: the rest of the word, or the next word
	opt   string // short options with an optional value, only when attached (sed -i[SUF], xargs -i[R])
	// long options, space separated: "name" has no value, "name=" takes
	// one (--name=V or --name V), "name?" an optional one, only attached
	// (--name=V). A ":X" suffix names the short option it is the same as
	// (force:f, message=:m), for Canonical.
	long string
	// exact lists whole words that are the same as short options
	// (--interactive=once is rm -I), for Canonical.
	exact []longFlag
	alias []flagAlias // letters that mean other letters (rm -R is -r), for Canonical
	num   bool        // -NUM is an option (nice -10)
	// noAbbrev: a long option is only read as written, not as an
	// unambiguous prefix of one (getopt_long and git's parse-options accept
	// prefixes: rm --rec, git reset --har; curl does not).
	noAbbrev bool
	// openLong: an unknown --name=VALUE is an option with its value (npm
	// and uv take any of their settings that way); without "=" it is still
	// unknown, since it may take the next word.
	openLong bool
}

type flagAlias struct {
	from byte
	to   string
}

// longFlag maps a whole word ("--interactive=once") to short letters.
type longFlag struct {
	name  string
	short string
}

// ProgramOptions returns the option table of a program (its basename), or
// nil when agent-shell knows nothing of its options. Wrappers (sudo, env,
// timeout, xargs, ...) are in the table too.
func ProgramOptions(prog string) *Options {
	switch prog {
	case "rm":
		return &rmOpts
	case "unlink":
		return &unlinkOpts
	case "cp":
		return &cpOpts
	case "mv":
		return &mvOpts
	case "ln":
		return &lnOpts
	case "install":
		return &installOpts
	case "rsync":
		return &rsyncOpts
	case "scp":
		return &scpOpts
	case "chmod":
		return &chmodOpts
	case "chown", "chgrp":
		return &chownOpts
	case "chattr":
		return &chattrOpts
	case "setfacl":
		return &setfaclOpts
	case "mkdir":
		return &mkdirOpts
	case "rmdir":
		return &rmdirOpts
	case "touch":
		return &touchOpts
	case "truncate":
		return &truncateOpts
	case "shred":
		return &shredOpts
	case "tee":
		return &teeOpts
	case "ls":
		return &lsOpts
	case "grep", "egrep", "fgrep":
		return &grepOpts
	case "sort":
		return &sortOpts
	case "shuf":
		return &shufOpts
	case "uniq":
		return &uniqOpts
	case "sed":
		return &sedOpts
	case "perl":
		return &perlArgs
	case "ruby":
		return &rubyArgs
	case "awk", "gawk", "mawk", "nawk":
		return &awkOpts
	case "yq":
		return &yqOpts
	case "sd":
		return &sdOpts
	case "patch":
		return &patchOpts
	case "unzip":
		return &unzipOpts
	case "gzip", "bzip2", "xz", "lzma", "lzip", "zstd", "gunzip", "bunzip2", "unxz", "unlzma", "unzstd", "compress", "uncompress":
		return &gzipOpts
	case "curl":
		return &curlOpts
	case "wget":
		return &wgetOpts
	case "aria2c":
		return &aria2Opts
	case "parallel":
		return &parallelOpts
	case "man":
		return &manOpts
	}
	return wrapperOptions(prog)
}

// wrapperOptions returns the option table of a wrapper the unwrapping
// reads with scan (env, sudo's and xargs' own parsers aside).
func wrapperOptions(prog string) *Options {
	switch prog {
	case "command":
		return &commandOpts
	case "exec":
		return &execOpts
	case "nohup":
		return &nohupOpts
	case "caffeinate":
		return &caffeinateOpts
	case "time":
		return &timeOpts
	case "timeout":
		return &timeoutOpts
	case "nice":
		return &niceOpts
	case "ionice":
		return &ioniceOpts
	case "sudo":
		return &sudoOpts
	case "doas":
		return &doasOpts
	case "xargs":
		return &xargsOpts
	case "stdbuf":
		return &stdbufOpts
	case "chrt":
		return &chrtOpts
	case "taskset":
		return &tasksetOpts
	case "setsid":
		return &setsidOpts
	case "flock":
		return &flockOpts
	case "chroot":
		return &chrootOpts
	case "pkexec":
		return &pkexecOpts
	case "unbuffer":
		return &unbufferOpts
	case "strace":
		return &straceOpts
	case "ltrace":
		return &ltraceOpts
	case "fakeroot":
		return &fakerootOpts
	case "runuser":
		return &runuserOpts
	case "script":
		return &scriptOpts
	case "watch":
		return &watchOpts
	}
	return nil
}

// GitOptions returns the option table of a git subcommand (or of a
// subcommand and its own, "worktree add"), or nil.
func GitOptions(sub string) *Options {
	switch sub {
	case "push":
		return &gitPushOpts
	case "clean":
		return &gitCleanOpts
	case "reset":
		return &gitResetOpts
	case "checkout":
		return &gitCheckoutOpts
	case "restore":
		return &gitRestoreOpts
	case "switch":
		return &gitSwitchOpts
	case "branch":
		return &gitBranchOpts
	case "commit":
		return &gitCommitOpts
	case "add":
		return &gitAddOpts
	case "rm":
		return &gitRmOpts
	case "mv":
		return &gitMvOpts
	case "rebase":
		return &gitRebaseOpts
	case "fetch":
		return &gitFetchOpts
	case "clone":
		return &gitCloneOpts
	case "worktree add":
		return &gitWorktreeAddOpts
	case "stash push":
		return &gitStashPushOpts
	case "tag":
		return &gitTagOpts
	case "apply", "am":
		return &gitApplyOpts
	case "config":
		return &gitConfigOpts
	}
	return nil
}

// TablePrograms lists the programs of ProgramOptions that take operands
// (the wrappers aside), and "git SUB" for each subcommand of GitOptions,
// for the tests that hold the consumers of the table to agree.
func TablePrograms() []string {
	return []string{"rm", "unlink", "cp", "mv", "ln", "install", "rsync", "chmod", "chown", "chgrp", "chattr", "setfacl",
		"mkdir", "rmdir", "touch", "truncate", "shred", "tee", "ls", "grep", "egrep", "fgrep", "sort", "shuf",
		"uniq", "sed", "perl", "ruby", "awk", "gawk", "yq", "sd", "patch", "gzip", "bzip2", "xz", "zstd", "curl",
		"git push", "git clean", "git reset", "git checkout", "git restore", "git switch", "git branch",
		"git commit", "git add", "git rm", "git mv", "git rebase", "git fetch", "git tag", "git apply", "git am",
		"git config"}
}

// Programs with operands. Where two parts of agent-shell once disagreed on
// an option, the entry follows the program (GNU coreutils, git's
// parse-options, the tools' own manuals).
var (
	rmOpts = Options{flags: "dfiIrRv",
		alias: []flagAlias{{'R', "r"}},
		long: "force:f recursive:r dir:d verbose:v interactive?:i one-file-system no-preserve-root preserve-root? " +
			"help version",
		exact: []longFlag{{"--interactive=always", "i"}, {"--interactive=once", "I"}},
	}
	unlinkOpts = Options{long: "help version"}
	cpOpts     = Options{flags: "abdfHilLnPprRsTuvxZ", args: "St",
		alias: []flagAlias{{'R', "r"}},
		long: "recursive:r force:f archive:a interactive:i no-clobber:n verbose:v link:l symbolic-link:s " +
			"update?:u dereference:L no-dereference:P one-file-system:x target-directory=:t suffix=:S " +
			"no-target-directory:T attributes-only backup? copy-contents debug no-preserve= parents preserve? " +
			"reflink? remove-destination sparse= strip-trailing-slashes context? keep-directory-symlink help version",
	}
	mvOpts = Options{flags: "bfinTuvZ", args: "St",
		long: "force:f interactive:i no-clobber:n verbose:v update?:u target-directory=:t suffix=:S " +
			"no-target-directory:T backup? context debug exchange no-copy strip-trailing-slashes help version",
	}
	lnOpts = Options{flags: "bdFfinLPrsTv", args: "St",
		long: "symbolic:s force:f no-dereference:n interactive:i verbose:v relative:r logical:L physical:P " +
			"directory:d target-directory=:t suffix=:S no-target-directory:T backup? help version",
	}
	installOpts = Options{flags: "bcCdDpsTvZ", args: "gmoSt",
		long: "backup? compare:C directory:d group=:g mode=:m owner=:o preserve-timestamps:p strip:s " +
			"strip-program= suffix=:S target-directory=:t no-target-directory:T verbose:v preserve-context " +
			"context? debug help version",
	}
	// rsync reads its options with popt: --name VALUE and --name=VALUE.
	rsyncOpts = Options{flags: "0456789aAbcCdDEgHhiIkKlLmnNoOpPqrRsStuUvWxXyz", args: "eTfBM",
		long: "exclude= include= filter=:f rsh=:e rsync-path= temp-dir=:T backup-dir= link-dest= compare-dest= " +
			"copy-dest= files-from= exclude-from= include-from= log-file= log-file-format= partial-dir= suffix= " +
			"chmod= chown= usermap= groupmap= timeout= contimeout= port= password-file= bwlimit= max-size= " +
			"min-size= max-delete= block-size=:B out-format= info= debug= iconv= checksum-choice= compress-choice= " +
			"compress-level= skip-compress= modify-window= sockopts= address= outbuf= write-batch= " +
			"only-write-batch= read-batch= protocol= remote-option=:M stop-after= stop-at= max-alloc= " +
			"archive:a recursive:r remove-source-files delete delete-before delete-during delete-after " +
			"delete-delay del delete-excluded dry-run:n verbose:v quiet:q",
	}
	scpOpts = Options{flags: "346ABCOpqRrTv", args: "cDFiJloPSX", noAbbrev: true}
	// chmod's modes look like flags (-w, -rwx): only these letters are
	// flags, and Canonical keeps a cluster with any other letter as it is.
	chmodOpts = Options{flags: "cfvR",
		long: "recursive:R changes:c silent:f quiet:f verbose:v no-preserve-root preserve-root reference= help version",
	}
	chownOpts = Options{flags: "cfhHLPRv",
		long: "recursive:R changes:c silent:f quiet:f verbose:v no-dereference:h dereference from= " +
			"no-preserve-root preserve-root reference= help version",
	}
	chattrOpts  = Options{flags: "RVf", args: "vp"}
	setfaclOpts = Options{flags: "bkndRLPvh", args: "mMxX",
		long: "modify=:m modify-file=:M remove=:x remove-file=:X set= set-file= remove-all:b remove-default:k " +
			"no-mask:n mask default:d recursive:R logical:L physical:P restore= test version help",
	}
	mkdirOpts    = Options{flags: "pvZ", args: "m", long: "parents:p verbose:v mode=:m context? help version"}
	rmdirOpts    = Options{flags: "pv", long: "parents:p verbose:v ignore-fail-on-non-empty help version"}
	touchOpts    = Options{flags: "acfhm", args: "dtr", long: "no-create:c date=:d reference=:r no-dereference:h time= help version"}
	truncateOpts = Options{flags: "co", args: "rs", long: "no-create:c io-blocks:o reference=:r size=:s help version"}
	shredOpts    = Options{flags: "fuvxz", args: "ns",
		long: "force:f remove?:u zero:z iterations=:n size=:s verbose:v exact:x random-source= help version",
	}
	teeOpts = Options{flags: "aip", long: "append:a ignore-interrupts:i output-error? help version"}
	lsOpts  = Options{noAbbrev: true,
		flags: "1aAbBcCdDfFgGhHikLlmnNopqQrRsStuUvxXZ", args: "ITw",
		long: "all:a almost-all:A recursive:R human-readable:h reverse:r directory:d inode:i size:s " +
			"dereference:L classify:F",
	}
	grepOpts = Options{noAbbrev: true,
		flags: "abcEFGHhiIlLnoPqRrsTUvwxyZz", args: "ABCDdefm",
		long: "recursive:r dereference-recursive:R ignore-case:i invert-match:v regexp=:e file=:f " +
			"files-with-matches:l files-without-match:L count:c extended-regexp:E fixed-strings:F basic-regexp:G " +
			"perl-regexp:P word-regexp:w line-regexp:x quiet:q silent:q no-messages:s line-number:n " +
			"with-filename:H no-filename:h only-matching:o max-count=:m after-context=:A before-context=:B " +
			"context=:C text:a null:Z null-data:z",
	}
	sortOpts = Options{flags: "bcCdfghiMmnRrsuVz", args: "okStT",
		long: "output=:o key=:k buffer-size=:S field-separator=:t temporary-directory=:T files0-from= " +
			"compress-program= parallel= batch-size= random-source= sort= check? debug help version",
	}
	shufOpts = Options{flags: "erz", args: "inoh",
		long: "echo:e input-range=:i head-count=:n output=:o random-source= repeat:r zero-terminated:z help version",
	}
	// uniq's --group and --all-repeated take an optional value, attached.
	uniqOpts = Options{flags: "cdDiuz", args: "fsw",
		long: "count:c repeated:d all-repeated? group? skip-fields=:f skip-chars=:s check-chars=:w ignore-case:i " +
			"unique:u zero-terminated:z help version",
	}
	// GNU sed: -i[SUFFIX], attached only (BSD sed's -i takes the next word).
	sedOpts = Options{flags: "nErsuz", args: "efl", opt: "i",
		long: "expression=:e file=:f line-length=:l in-place?:i quiet:n silent:n regexp-extended:E separate:s " +
			"unbuffered:u null-data:z follow-symlinks posix sandbox debug help version",
	}
	// perl and ruby as the one-liner reader reads them (interp.go's
	// perlOpts and rubyOpts: code and arg letters take a value, rest and
	// octal ones an attached one); perl -I DIR takes the next word.
	perlArgs = Options{flags: "acnpsStTuUvwWX", args: "eEI", opt: "iMmxl0CdDFV"}
	rubyArgs = Options{flags: "acdlnpsSvwy", args: "eErIC", opt: "i0FKTWx"}
	// awkOpts are gawk's options, a superset of those of mawk, the one true
	// awk and busybox awk; -W takes a long option in POSIX form.
	awkOpts = Options{
		flags: "bcCghIkMnNOPrsStVY",
		args:  "eEfFilvWZ",
		opt:   "dDLop",
		long: "assign= field-separator= file= source= exec= include= load= dump-variables? debug? lint? " +
			"pretty-print? profile? persist? characters-as-bytes traditional compat copyright gen-pot help " +
			"usage trace csv bignum use-lc-numeric non-decimal-data optimize no-optimize posix re-interval " +
			"sandbox lint-old version",
	}
	// yq (mikefarah's): -P is --prettyPrint, a flag; -f is --front-matter.
	yqOpts = Options{flags: "CeijMnNPrvV0h", args: "fIopsd",
		long: "output-format=:o indent=:I input-format=:p front-matter=:f split-exp=:s expression= from-file= " +
			"inplace:i prettyPrint:P colors:C no-colors:M exit-status:e null-input:n no-doc:N unwrapScalar? " +
			"verbose:v help version",
	}
	// sd 1.x (clap): -f FLAGS and -n LIMIT take a value; -s is -F.
	sdOpts = Options{flags: "pFsAhV", args: "nf",
		long: "preview:p fixed-strings:F string-mode:F across:A max-replacements=:n flags=:f help version",
	}
	patchOpts = Options{flags: "bceEflnNRsStTuvZ", args: "BDFVYzdioprgx",
		long: "prefix=:B ifdef=:D fuzz=:F version-control=:V basename-prefix=:Y suffix=:z directory=:d input=:i " +
			"output=:o strip=:p reject-file=:r get=:g quoting-style= backup-if-mismatch no-backup-if-mismatch " +
			"backup:b context:c ed:e remove-empty-files:E force:f ignore-whitespace:l normal:n forward:N " +
			"reverse:R quiet:s silent:s batch:t set-time:T unified:u verbose:v set-utc:Z dry-run posix " +
			"binary merge? read-only= reject-format= follow-symlinks debug=:x help version",
	}
	gzipOpts  = Options{args: "S", long: "suffix=:S"}
	unzipOpts = Options{args: "dPIO"} // -x ends the members: what follows it is left out
	curlOpts  = Options{noAbbrev: true,
		flags: "0123456aBfgGiIjJklLMnNOpqRsSvVZ", args: "AbcCdDeEFHKmoPQrtTuUwxXyYz",
		long: "output=:o request=:X header=:H data=:d location:L silent:s fail:f show-error:S insecure:k " +
			"include:i head:I remote-name:O user=:u upload-file=:T verbose:v form=:F user-agent=:A cookie=:b " +
			"proxy=:x max-time=:m referer=:e range=:r get:G output-dir= remote-name-all remote-header-name:J url= " +
			"dump-header=:D cookie-jar=:c trace= trace-ascii= stderr= libcurl= etag-save= hsts= alt-svc=",
	}
	// GNU wget's options with a value (it has many more flags).
	wgetOpts = Options{noAbbrev: true, flags: "bcdEFhkKmNpqrSvV46x", args: "aABDeiIlnOoPQtTUwX",
		long: "output-document=:O directory-prefix=:P input-file=:i recursive:r mirror:m level=:l " +
			"content-disposition output-file=:o append-output=:a user-agent=:U header= post-data= post-file= " +
			"tries=:t timeout=:T wait=:w user= password= execute=:e",
	}
	// aria2c's options with a value that name where it writes.
	aria2Opts = Options{noAbbrev: true, flags: "hqvVxZ", args: "cdiojsxk", long: "out=:o dir=:d input-file=:i"}
	// man-db's man: -P and --pager name the pager it runs with a shell.
	manOpts = Options{flags: "acdDfhiIkKluVwWtZ7", args: "CMPrSsemplLERT", opt: "HX",
		long: "config-file=:C manpath=:M pager=:P prompt=:r sections=:S extension=:e systems=:m preprocessor=:p " +
			"locale=:L encoding=:E recode=:R troff-device=:T html?:H gxditview?:X all:a catman:c debug:d default:D " +
			"whatis:f help:h ignore-case:i match-case:I apropos:k global-apropos:K local-file:l update:u version:V " +
			"where:w location:w where-cat:W location-cat:W troff:t ditroff:Z ascii:7 no-subpages no-hyphenation nh " +
			"no-justification nj regex wildcard names-only usage",
	}
	parallelOpts = Options{
		flags: "0fghkmpqrtuvVxX",
		args:  "aCdEIjJLnNPsSW",
		opt:   "eil",
		long: "null arg-file= arg-file-sep= arg-sep= basefile= bf= block= block-size= colsep= compress " +
			"compress-program= decompress-program= delay= delimiter= env= eof? halt= header= joblog= jobs= " +
			"load= max-args= max-chars= max-lines? max-procs= max-replace-args= memfree= memsuspend= nice= " +
			"profile= results= res= resume resume-failed retries= return= rpl= sshdelay= sshlogin= " +
			"sshloginfile= slf= ssh= tagstring= tag-string= tag timeout= tmpdir= transfer transferfile= tf= " +
			"workdir= wd= termseq= replace? extensionreplace= er= template= limit= cat fifo pipe pipepart " +
			"group ungroup line-buffer lb keep-order bar eta progress verbose dry-run dryrun quote " +
			"no-run-if-empty interactive xargs xapply link plus csv files keeporder will-cite silent " +
			"no-notice shuf round-robin nonall onall fg bg semaphore id= semaphoretimeout= st= " +
			"total-jobs= total= help version",
	}
)

// git's subcommands (git's parse-options: a long option's value is
// --name=V or --name V; "name?" ones, PARSE_OPT_OPTARG, only --name=V).
var (
	gitPushOpts = Options{flags: "dfnquv", args: "o",
		long: "force:f delete:d dry-run:n quiet:q verbose:v set-upstream:u push-option=:o all branches mirror " +
			"tags follow-tags no-follow-tags atomic no-atomic force-with-lease? no-force-with-lease " +
			"force-if-includes no-force-if-includes receive-pack= exec= repo= prune no-verify verify porcelain " +
			"progress no-progress recurse-submodules= no-recurse-submodules signed? no-signed thin no-thin ipv4 ipv6",
	}
	gitCleanOpts = Options{flags: "dfinqXx", args: "e",
		long: "force:f dry-run:n quiet:q interactive:i exclude=:e no-quiet",
	}
	gitResetOpts = Options{flags: "Npq", args: "U",
		long: "quiet:q patch:p intent-to-add:N hard soft mixed merge keep no-refresh refresh recurse-submodules " +
			"no-recurse-submodules pathspec-from-file= pathspec-file-nul unified=:U inter-hunk-context=",
	}
	gitCheckoutOpts = Options{flags: "fmpqt", args: "bBU",
		long: "force:f merge:m patch:p quiet:q track?:t detach guess no-guess orphan= ours theirs conflict= " +
			"ignore-skip-worktree-bits ignore-other-worktrees overwrite-ignore no-overwrite-ignore recurse-submodules " +
			"no-recurse-submodules progress no-progress no-track overlay no-overlay pathspec-from-file= " +
			"pathspec-file-nul unified=:U inter-hunk-context=",
	}
	gitRestoreOpts = Options{flags: "mpqSW23", args: "sU",
		long: "source=:s patch:p worktree:W staged:S quiet:q merge:m ours theirs conflict= ignore-unmerged " +
			"ignore-skip-worktree-bits overlay no-overlay progress no-progress recurse-submodules " +
			"no-recurse-submodules pathspec-from-file= pathspec-file-nul unified=:U inter-hunk-context=",
	}
	gitSwitchOpts = Options{flags: "dfmqt", args: "cC",
		long: "create=:c force-create=:C detach:d force:f discard-changes:f merge:m quiet:q track?:t guess no-guess " +
			"orphan= conflict= ignore-other-worktrees progress no-progress recurse-submodules " +
			"no-recurse-submodules no-track",
	}
	gitBranchOpts = Options{flags: "acdfilmqrtvCDM", args: "u",
		alias: []flagAlias{{'D', "df"}, {'M', "mf"}, {'C', "cf"}},
		long: "delete:d force:f move:m copy:c remotes:r all:a list:l verbose:v quiet:q set-upstream-to=:u " +
			"ignore-case:i track?:t abbrev? no-abbrev color? no-color column? no-column contains= no-contains= " +
			"create-reflog edit-description format= merged= no-merged= points-at= show-current sort= " +
			"unset-upstream omit-empty recurse-submodules",
	}
	gitCommitOpts = Options{flags: "aenpqsvz", args: "cCFmt", opt: "uS",
		long: "all:a message=:m file=:F no-verify:n quiet:q signoff:s verbose:v edit:e patch:p " +
			"reuse-message=:C reedit-message=:c template=:t null:z amend author= date= cleanup= dry-run fixup= " +
			"squash= include only no-edit allow-empty allow-empty-message reset-author short branch porcelain " +
			"long status no-status untracked-files? gpg-sign? no-gpg-sign trailer= pathspec-from-file= " +
			"pathspec-file-nul no-post-rewrite verify interactive",
	}
	gitAddOpts = Options{flags: "AefiNnpuv",
		long: "all:A edit:e force:f interactive:i intent-to-add:N dry-run:n patch:p update:u verbose:v " +
			"ignore-errors ignore-missing ignore-removal no-ignore-removal no-all refresh renormalize chmod= " +
			"sparse pathspec-from-file= pathspec-file-nul",
	}
	gitRmOpts = Options{flags: "fnqr",
		long: "force:f dry-run:n quiet:q cached ignore-unmatch sparse pathspec-from-file= pathspec-file-nul",
	}
	gitMvOpts     = Options{flags: "fknv", long: "force:f dry-run:n verbose:v sparse"}
	gitRebaseOpts = Options{flags: "fiqv", args: "sxXC", opt: "S",
		long: "interactive:i force-rebase:f quiet:q verbose:v exec=:x strategy=:s strategy-option=:X onto= " +
			"keep-base continue abort skip quit edit-todo show-current-patch apply merge empty= keep-empty " +
			"no-keep-empty autosquash no-autosquash autostash no-autostash committer-date-is-author-date " +
			"ignore-date reset-author-date signoff root rebase-merges? no-rebase-merges update-refs " +
			"no-update-refs fork-point no-fork-point gpg-sign? no-gpg-sign no-ff stat no-stat no-verify verify " +
			"reschedule-failed-exec no-reschedule-failed-exec reapply-cherry-picks no-reapply-cherry-picks " +
			"whitespace= ignore-whitespace",
	}
	gitFetchOpts = Options{flags: "afmnpqtvkPu", args: "jo",
		long: "all:a force:f multiple:m dry-run:n prune:p quiet:q tags:t verbose:v jobs=:j server-option=:o append " +
			"atomic depth= deepen= shallow-since= shallow-exclude= unshallow update-shallow refetch refmap= " +
			"prune-tags recurse-submodules? no-recurse-submodules no-tags set-upstream upload-pack= " +
			"update-head-ok progress show-forced-updates no-show-forced-updates ipv4 ipv6 keep filter= " +
			"negotiation-tip= negotiate-only write-fetch-head no-write-fetch-head porcelain auto-maintenance " +
			"auto-gc no-auto-gc",
	}
	gitCloneOpts = Options{flags: "lsqvn", args: "objucj",
		long: "local:l no-hardlinks shared:s quiet:q verbose:v progress no-checkout:n bare mirror origin=:o " +
			"branch=:b upload-pack=:u reference= reference-if-able= dissociate separate-git-dir= depth= " +
			"shallow-since= shallow-exclude= single-branch no-single-branch no-tags recurse-submodules? " +
			"shallow-submodules no-shallow-submodules remote-submodules no-remote-submodules jobs=:j " +
			"template= config=:c filter= also-filter-submodules sparse reject-shallow no-reject-shallow " +
			"bundle-uri= server-option= ref-format= revision=",
	}
	gitStashPushOpts = Options{flags: "pSkuaq", args: "m",
		long: "patch:p staged:S keep-index:k no-keep-index include-untracked:u all:a quiet:q message=:m " +
			"pathspec-from-file= pathspec-file-nul",
	}
	gitWorktreeAddOpts = Options{flags: "fdq", args: "bB",
		long: "force:f detach:d checkout no-checkout lock reason= orphan track no-track guess-remote no-guess-remote quiet:q",
	}
	gitTagOpts = Options{flags: "adfsvlei", args: "Fmu", opt: "n",
		long: "annotate:a delete:d force:f sign:s verify:v message=:m file=:F local-user=:u list:l sort= " +
			"contains= no-contains= merged= no-merged= points-at= column? no-column create-reflog format= " +
			"color? ignore-case:i omit-empty cleanup= trailer= no-sign edit:e",
	}
	gitApplyOpts = Options{flags: "3qRvsk", args: "pC",
		long: "directory= exclude= include= whitespace= build-fake-ancestor= stat numstat summary check index " +
			"cached intent-to-add:N reverse:R reject unidiff-zero apply no-add allow-empty recount " +
			"inaccurate-eof verbose:v quiet:q unsafe-paths allow-overlap",
	}
	gitConfigOpts = Options{flags: "lez", args: "f",
		long: "file=:f blob= type= default= comment= value= global system local worktree get get-all " +
			"get-regexp get-urlmatch get-color get-colorbool list:l edit:e add unset unset-all replace-all " +
			"rename-section remove-section show-origin show-scope name-only null:z includes no-includes " +
			"bool int bool-or-int path expiry-date fixed-value",
	}
)

// Option tables of the wrappers, which stop at their first operand (the
// wrapped program), so options after it belong to the wrapped command.
var (
	commandOpts = Options{flags: "pvV"}
	execOpts    = Options{flags: "cl", args: "a"}
	nohupOpts   = Options{long: "help version"}
	// caffeinate (macOS) keeps the machine awake while it runs a utility.
	caffeinateOpts = Options{flags: "disum", args: "tw"}
	timeOpts       = Options{flags: "apqv", args: "fo", long: "format= output= append portability verbose quiet help version"}
	timeoutOpts    = Options{flags: "fpv", args: "ks", long: "foreground kill-after= preserve-status signal= verbose help version"}
	niceOpts       = Options{args: "n", long: "adjustment= help version", num: true}
	ioniceOpts     = Options{flags: "thV", args: "cnpPu", long: "class= classdata= pid= pgid= uid= ignore help version"}
	sudoOpts       = Options{
		flags: "AbBEeHiKklnNPSsVv",
		args:  "CDghprRtTuU",
		long: "askpass background bell preserve-env? edit set-home login remove-timestamp reset-timestamp " +
			"list non-interactive no-update preserve-groups stdin shell version validate help " +
			"user= group= host= prompt= close-from= chdir= role= type= other-user= command-timeout= chroot=",
	}
	doasOpts  = Options{flags: "nsL", args: "uC"}
	xargsOpts = Options{
		flags: "0oprtx",
		args:  "adEIJLnPRsS", // -J, -R, -S: BSD xargs
		opt:   "eil",
		long: "null arg-file= delimiter= eof? replace? max-lines? max-args= max-procs= max-chars= " +
			"process-slot-var= interactive no-run-if-empty verbose exit open-tty show-limits help version",
	}
	stdbufOpts   = Options{args: "ioe", long: "input= output= error= help version"}
	chrtOpts     = Options{flags: "abdefimoprRv", args: "TPD", long: "all-tasks batch deadline ext fifo idle max other pid rr reset-on-fork verbose sched-runtime= sched-period= sched-deadline= help version"}
	tasksetOpts  = Options{flags: "acp", long: "all-tasks cpu-list pid help version"}
	setsidOpts   = Options{flags: "cfw", long: "ctty fork wait help version"}
	flockOpts    = Options{flags: "sexnouF", args: "wE", long: "shared exclusive unlock nonblock nb close no-fork verbose wait= timeout= conflict-exit-code= help version"}
	chrootOpts   = Options{long: "userspec= groups= skip-chdir help version"}
	pkexecOpts   = Options{long: "user= disable-internal-agent keep-cwd help version"}
	unbufferOpts = Options{flags: "p"}
	straceOpts   = Options{
		flags: "cCdDfFhikqrtTvVwxyYzZ",
		args:  "abeEIoOpPsSuUX",
		long: "summary-only summary summary-wall-clock follow-forks output-separately daemonize " +
			"decode-fds? decode-pids? stack-trace? no-abbrev successful-only failed-only quiet? " +
			"silent? relative-timestamps? absolute-timestamps? timestamps? syscall-times? seccomp-bpf " +
			"kill-on-exit debug help version columns= abbrev= expr= trace= trace-path= env= " +
			"output= signal= status= attach= instruction-pointer raw= read= write= verbose= inject= " +
			"fault= string-limit= summary-sort= sort= user= const-print-style= summary-columns= trace-fds= " +
			"argv0= quiet= secontext? strings-in-hex? tips?",
	}
	ltraceOpts   = Options{flags: "bcCfhiLrStTV", args: "aAeEFlnopsuwxD", long: "align= demangle library= output= help version indent= where="}
	fakerootOpts = Options{flags: "uhv", args: "lsib", long: "lib= faked= unknown-is-real help version"}
	runuserOpts  = Options{
		flags: "flmpPhV",
		args:  "cgGsuwZ",
		long: "command= session-command= fast group= supp-group= login preserve-environment pty shell= " +
			"user= whitelist-environment= help version",
	}
	scriptOpts = Options{
		flags: "aefqhVE",
		args:  "cBIOTmo",
		opt:   "t",
		long: "append command= echo= return flush force log-io= log-in= log-out= log-timing= " +
			"logging-format= output-limit= quiet timing? help version",
	}
	watchOpts = Options{flags: "bcCegptwx", args: "nq", opt: "d", long: "beep color no-color differences? errexit chgexit interval= precise no-title no-wrap exec equexit= help version"}
)

// Short option kinds, as shortKind returns them.
const (
	shortNone  = 0   // not an option of the program
	shortFlag  = ' ' // no value
	shortValue = '=' // a value: the rest of the word, or the next word
	shortOpt   = '?' // an optional value, only attached
)

// shortKind says what the short option c is.
func (o *Options) shortKind(c byte) byte {
	switch {
	case strings.IndexByte(o.flags, c) >= 0:
		return shortFlag
	case strings.IndexByte(o.args, c) >= 0:
		return shortValue
	case strings.IndexByte(o.opt, c) >= 0:
		return shortOpt
	}
	return shortNone
}

// longOpt finds a long option by its name or, unless noAbbrev, an
// unambiguous prefix of it, as getopt_long accepts, and returns its full
// name, its kind (' ' no value, '=' a value, '?' an optional attached
// one, 0 unknown or ambiguous) and the short option it is the same as.
func (o *Options) longOpt(n string) (full string, kind byte, short string) {
	if n == "" {
		return "", 0, ""
	}
	ambiguous := false
	for tok := range strings.FieldsSeq(o.long) {
		f, s, _ := strings.Cut(tok, ":")
		k := byte(' ')
		if c := f[len(f)-1]; c == '=' || c == '?' {
			k, f = c, f[:len(f)-1]
		}
		if f == n {
			return f, k, s
		}
		if !o.noAbbrev && strings.HasPrefix(f, n) {
			if kind != 0 && full != f {
				ambiguous = true
			}
			full, kind, short = f, k, s
		}
	}
	if ambiguous {
		return "", 0, ""
	}
	return full, kind, short
}

// Args is a program's arguments as Split reads them.
type Args struct {
	Operands []string
	Opts     []Opt
}

// Opt is one option Split found: Name is its letter, or its long name
// (completed from an abbreviation the table knows), Value its value.
type Opt struct{ Name, Value string }

// Split reads a program's arguments (without the program) the way
// getopt_long does: options may follow operands, "--" ends them, a short
// option with a value ends its cluster and takes the rest of the word or
// the next word, a long one takes "=VALUE" or, when it needs a value, the
// next word. An option the table does not know (or a nil o) counts as one
// without a value. It is the reading the guard and the effects share.
func (o *Options) Split(args []string) Args {
	var p Args
	if o == nil {
		o = &Options{}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			p.Operands = append(p.Operands, args[i+1:]...)
			return p
		case strings.HasPrefix(a, "--"):
			n, v, eq := strings.Cut(a[2:], "=")
			full, kind, _ := o.longOpt(n)
			if full != "" {
				n = full
			}
			if !eq && kind == '=' && i+1 < len(args) {
				v = args[i+1]
				i++
			}
			p.Opts = append(p.Opts, Opt{n, v})
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				c := a[j]
				switch o.shortKind(c) {
				case shortOpt:
					p.Opts = append(p.Opts, Opt{string(c), a[j+1:]})
					j = len(a)
				case shortValue:
					v := a[j+1:]
					if v == "" && i+1 < len(args) {
						v = args[i+1]
						i++
					}
					p.Opts = append(p.Opts, Opt{string(c), v})
					j = len(a)
				default:
					p.Opts = append(p.Opts, Opt{Name: string(c)})
				}
			}
		default:
			p.Operands = append(p.Operands, a)
		}
	}
	return p
}

// Has reports whether one of the options names was given.
func (p Args) Has(names ...string) bool {
	for _, o := range p.Opts {
		for _, n := range names {
			if o.Name == n {
				return true
			}
		}
	}
	return false
}

// Values lists the values of the options names, in order.
func (p Args) Values(names ...string) []string {
	var out []string
	for _, o := range p.Opts {
		for _, n := range names {
			if o.Name == n {
				out = append(out, o.Value)
				break
			}
		}
	}
	return out
}

// Operands is ProgramOptions(prog).Split(args).Operands: the operands of a
// program's arguments; for a program the table does not know, every word
// that starts with "-" (but "-" itself) is an option without a value.
func Operands(prog string, args []string) []string {
	return ProgramOptions(prog).Split(args).Operands
}

// InPlace reads the operand roles of the programs that edit files in place:
// sed -i (--in-place), perl -i, ruby -i, gawk -i inplace, yq -i, and sd
// (unless -p). edits reports an in-place edit; files are the files it
// edits: the operands after the program text (sed's script, perl's and
// ruby's code, awk's program, yq's expression, sd's two patterns), which
// is not an operand when an option gave it (-e, -f, --expression). For
// other programs, files is nil and edits false. Without an in-place
// edit, files are the files the program reads.
func InPlace(prog string, p Args) (files []string, edits bool) {
	skip := 1 // operands before the files
	switch prog {
	case "sed":
		edits = p.Has("i", "in-place")
		if p.Has("e", "f", "expression", "file") {
			skip = 0
		}
	case "perl", "ruby":
		edits = p.Has("i")
		if p.Has("e", "E") {
			skip = 0
		}
	case "awk", "gawk":
		for _, v := range p.Values("i", "include") {
			edits = edits || v == "inplace" || v == "inplace.awk"
		}
		if p.Has("f", "file", "e", "source", "E", "exec") {
			skip = 0
		}
	case "yq":
		edits = p.Has("i", "inplace")
		if p.Has("expression", "from-file") {
			skip = 0
		}
	case "sd":
		edits, skip = !p.Has("p", "preview"), 2
	default:
		return nil, false
	}
	if len(p.Operands) < skip {
		return nil, edits
	}
	return p.Operands[skip:], edits
}
