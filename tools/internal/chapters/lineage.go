package chapters

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// ManifestName is the file at a chapter's root that lists, one relative
// path per line, the files of the previous chapter that this chapter
// changes or deletes on purpose. Blank lines and lines starting with '#'
// are ignored. The order of the lines is the order of the chapter's diff
// (see Order), the lesson's core first. New files need not be listed; a
// new file that is listed is placed in the diff by its line.
const ManifestName = "LESSON"

// Lineage summarises a successful lineage check.
type Lineage struct {
	Chapters int // chapters checked
	InStep   int // files shared with the previous chapter and identical to it
}

// CheckLineage checks every consecutive pair of chapters under root: each
// file the two share must be identical after folding the module paths,
// unless the later chapter declares it in its manifest. It returns every
// problem found; err reports only failures to read the tree.
func CheckLineage(root string) (Lineage, []string, error) {
	chs, err := List(root)
	if err != nil {
		return Lineage{}, nil, err
	}
	res := Lineage{Chapters: len(chs)}
	var problems []string
	for i := 1; i < len(chs); i++ {
		prev, err := Load(root, chs[i-1].Name)
		if err != nil {
			return Lineage{}, nil, err
		}
		cur, err := Load(root, chs[i].Name)
		if err != nil {
			return Lineage{}, nil, err
		}
		declared, ps, err := ReadManifest(root, cur.Name)
		if err != nil {
			return Lineage{}, nil, err
		}
		problems = append(problems, ps...)
		inStep, ps := checkPair(prev, cur, declared)
		res.InStep += inStep
		problems = append(problems, ps...)
	}
	return res, problems, nil
}

// checkPair compares cur with prev and returns the number of shared files
// in step and the problems found.
func checkPair(prev, cur *Tree, declared map[string]bool) (int, []string) {
	// The manifests themselves differ from chapter to chapter by design.
	delete(prev.Files, ManifestName)
	delete(cur.Files, ManifestName)
	manifest := cur.Name + "/" + ManifestName
	inStep := 0
	var problems []string
	for _, p := range Paths(prev, cur) {
		pf, cf := prev.Files[p], cur.Files[p]
		switch {
		case pf != nil && cf != nil && bytes.Equal(pf.Data, cf.Data):
			inStep++
			if declared[p] {
				problems = append(problems, fmt.Sprintf("%s declares %s, but it is identical to %s/%s: remove the stale line",
					manifest, p, prev.Name, p))
			}
		case pf != nil && cf != nil:
			if !declared[p] {
				problems = append(problems, fmt.Sprintf("%s/%s differs from %s/%s but is not declared in %s: carry the fix over, or declare the change",
					cur.Name, p, prev.Name, p, manifest))
			}
		case pf != nil: // deleted in cur
			if !declared[p] {
				problems = append(problems, fmt.Sprintf("%s/%s is deleted in %s but not declared in %s: restore it, or declare the deletion",
					prev.Name, p, cur.Name, manifest))
			}
		default:
			// New in cur: declared or not, fine; a line naming it only
			// places it in the diff.
		}
	}
	for p := range declared {
		if prev.Files[p] == nil && cur.Files[p] == nil {
			problems = append(problems, fmt.Sprintf("%s declares %s, which exists in neither %s nor %s",
				manifest, p, prev.Name, cur.Name))
		}
	}
	sort.Strings(problems)
	return inStep, problems
}

// ManifestOrder returns the clean paths the manifest of chapter root/name
// lists, in its order; lines ReadManifest reports as problems are left out.
func ManifestOrder(root, name string) ([]string, error) {
	_, lines, _, err := readManifest(root, name)
	return lines, err
}

// ReadManifest reads the manifest of chapter root/name and returns the set
// of paths it declares, with a problem for each line that is not a clean
// relative path. A missing manifest declares nothing.
func ReadManifest(root, name string) (map[string]bool, []string, error) {
	declared, _, problems, err := readManifest(root, name)
	return declared, problems, err
}

// readManifest reads the manifest of chapter root/name: the set of paths
// it declares, the same paths in its order, and its problems.
func readManifest(root, name string) (map[string]bool, []string, []string, error) {
	declared := map[string]bool{}
	data, err := os.ReadFile(filepath.Join(root, name, ManifestName))
	if os.IsNotExist(err) {
		return declared, nil, nil, nil
	}
	if err != nil {
		return nil, nil, nil, err
	}
	var lines []string
	var problems []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if path.IsAbs(line) || path.Clean(line) != line || line == ".." || strings.HasPrefix(line, "../") {
			problems = append(problems, fmt.Sprintf("%s/%s:%d: %q is not a clean relative path like server/server.go", name, ManifestName, n, line))
			continue
		}
		if !declared[line] {
			lines = append(lines, line)
		}
		declared[line] = true
	}
	return declared, lines, problems, sc.Err()
}
