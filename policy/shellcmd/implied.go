package shellcmd

import "strings"

// impliedDeletes reports the files a command deletes without being rm, and
// what deletes them: rimraf and del-cli delete their operands, tar
// --remove-files, zip -m and 7z -sdel what they archived, rsync
// --remove-source-files what it copied, cmake -E remove_directory and
// remove what they name. (find -delete is read with find's other
// actions.)
func impliedDeletes(name string, l []word) (what string, files []word) {
	switch name {
	case "rimraf", "del-cli":
		return name, rimrafOperands(l)
	case "tar", "gtar":
		if files, ok := tarRemovedFiles(l); ok {
			return "tar --remove-files", files
		}
		return "", nil
	case "zip":
		return "zip -m", zipMovedFiles(l)
	case "7z", "7za", "7zr", "7zz":
		return "7z -sdel", sevenZipDeletedFiles(l)
	case "rsync":
		p := ProgramOptions("rsync").Split(strs(l[1:]))
		if !p.Has("remove-source-files") {
			return "", nil
		}
		return "rsync --remove-source-files", wordsOf(l, CopyRoles("rsync", strs(l[1:])).LocalSources())
	case "cmake":
		return "cmake -E", cmakeRemoved(l)
	}
	return "", nil
}

// zipMovedFiles: zip -m (--move) deletes the files it adds, the operands
// after the archive's name. Its one-letter options cluster (-rm); the ones
// of more letters that take a value are skipped with it, and the patterns
// after -x and -i are not files.
func zipMovedFiles(l []word) []word {
	move := false
	var ops []word
	patterns := false
	for i := 1; i < len(l); i++ {
		x := l[i]
		switch {
		case x.s == "--move":
			move = true
		case x.s == "-TT" || x.s == "--unzip-command" || x.s == "-b" || x.s == "-n" || x.s == "-t" || x.s == "-tt" ||
			x.s == "-P" || x.s == "-Z" || x.s == "-s" || x.s == "-O" || x.s == "--password" || x.s == "--temp-path":
			i++
		case x.s == "-x" || x.s == "-i" || x.s == "--exclude" || x.s == "--include":
			patterns = true
		case strings.HasPrefix(x.s, "--"):
		case strings.HasPrefix(x.s, "-") && len(x.s) > 1:
			patterns = false
			move = move || strings.Contains(x.s[1:], "m") && !strings.ContainsAny(x.s[1:2], "dlsStTZbnPO")
		case !patterns:
			ops = append(ops, x)
		}
	}
	if !move || len(ops) < 2 {
		return nil
	}
	return ops[1:]
}

// sevenZipDeletedFiles: 7z's -sdel deletes the files it archived, the
// operands after the command and the archive's name (switches are one
// word each, -sdel, -tzip, -p secret as -psecret).
func sevenZipDeletedFiles(l []word) []word {
	del := false
	var ops []word
	for _, x := range l[1:] {
		switch {
		case x.s == "-sdel":
			del = true
		case strings.HasPrefix(x.s, "-") && len(x.s) > 1:
		default:
			ops = append(ops, x)
		}
	}
	if !del || len(ops) < 3 {
		return nil
	}
	return ops[2:]
}

// cmakeRemoved: cmake -E remove_directory DIR... and cmake -E remove [-f]
// FILE... delete their operands (cmake -E rm is rm's own form, which the
// guess of an unknown program's arguments reads).
func cmakeRemoved(l []word) []word {
	for i := 1; i+1 < len(l); i++ {
		if l[i].s != "-E" {
			continue
		}
		switch l[i+1].s {
		case "remove_directory", "remove":
			var out []word
			for _, x := range l[i+2:] {
				if x.s != "-f" {
					out = append(out, x)
				}
			}
			return out
		}
		return nil
	}
	return nil
}

// wordsOf returns the words of l (past its program) whose text is each of
// vals in turn, so that what the program table read as operands keeps
// whether it was static.
func wordsOf(l []word, vals []string) []word {
	out := make([]word, 0, len(vals))
	from := 1
	for _, v := range vals {
		for j := from; j < len(l); j++ {
			if l[j].s == v {
				out = append(out, l[j])
				from = j + 1
				break
			}
		}
	}
	return out
}
