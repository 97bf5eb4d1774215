// Package atomicfile writes the files and folders a user names so that a
// failure never costs the user what was there before.
//
// Every output edgetwin writes (records, overlays, figures, traces,
// series, chip files, report folders) goes through this package. A file is
// written under a hidden temporary name in the target's own folder, synced
// to disk and renamed over the target, so a reader — or the user after a
// crash, a full disk or a kill — sees the old file or the whole new one,
// never a part:
//
//	err := atomicfile.WriteFile("m2.yaml", data)
//
// A file written as it is produced (records streamed from a probe) is a
// [File]: write to it, then [File.Commit] to put it in place or
// [File.Abort] to drop it. Until Commit the target is untouched.
//
// A folder is replaced whole by [ReplaceDir]: the new folder is built
// beside the target and swapped in by two renames (the old folder set
// aside, the new one moved in, the old one removed). A run killed between
// the renames leaves the old folder under a hidden name that the next
// [ReplaceDir] or [Recover] of the same target moves back; unfinished
// folders of dead runs are removed then too. The names say which process
// made them (".DIR.edgetwin-new-PID-…", ".DIR.edgetwin-old-PID-…"), so a
// leftover of a run that is still going is never touched.
//
// [CheckFile] and [CheckDir] say up front, before any work, whether a
// target can be written: its folder exists and takes a new file, and the
// target is not a folder (or not a file). Writing costs one extra file in
// the target's folder for as long as the write lasts, and an fsync of the
// file and of its folder.
package atomicfile
