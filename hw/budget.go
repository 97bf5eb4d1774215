package hw

import "strings"

// zramBandwidth is the assumed rate compressed pages come back at.
const zramBandwidth = 1.5e9

// SwapKind is where a device class puts memory past an app's budget, and
// what that rests on.
func SwapKind(pkg string) (kind, why string) {
	switch {
	case pkg == "" || pkg == "phone":
		return "zram", "assumed: phones compress memory instead of swapping to flash (Android's zram, iOS's memory compressor)"
	case pkg == "tablet" || strings.HasPrefix(pkg, "laptop"):
		return "storage", "assumed: tablets and laptops swap to their SSD (iPadOS 16's virtual memory swap, macOS, Windows)"
	}
	return "none", "assumed: a board or module image runs without swap"
}

// AppShare is the share of a device's DRAM one app may hold, for the
// device class its thermal package names ("" is the passive phone), and
// what the figure rests on. The operating system, its services and the
// apps in the background keep the rest: on a phone an app that passes its
// share is killed (Android's low-memory killer, iOS's jetsam), on a
// laptop it pushes others into swap.
func AppShare(pkg string) (share float64, why string) {
	switch {
	case pkg == "" || pkg == "phone":
		return 0.6, "assumed: a phone's share for one app — iPadOS 15 lets an app with the increased-memory-limit entitlement use 12 of a tablet's 16 GB, MacRumors 2021-06-09; a phone keeps more for the system and the apps behind it"
	case pkg == "tablet":
		return 0.75, "a tablet's share for one app: iPadOS 15 with the increased-memory-limit entitlement: 12 of 16 GB, MacRumors 2021-06-09, \"iPadOS 15 Allows Apps to Use Up to 12GB of RAM\""
	case strings.HasPrefix(pkg, "laptop"):
		return 0.75, "assumed: a laptop's share for one app — the desktop, a browser and the system beside it"
	case pkg == "car-cabin":
		return 0.8, "assumed: an in-car module's share for the assistant — the infotainment system beside it"
	case strings.HasPrefix(pkg, "board"):
		return 0.9, "assumed: a dev board's share for one process — a headless Linux runs little beside the model"
	}
	return 0.6, "assumed: a phone's share for one app — the device class is unknown"
}

// DisplayPower is what the device's display draws while it is on, for
// the device class its thermal package names ("" is the passive phone),
// and what the figure rests on; 0 for a class with no display of its own
// (a dev board, a module).
func DisplayPower(pkg string) (watts float64, why string) {
	switch {
	case pkg == "" || pkg == "phone":
		return 1, "assumed: about 1 W, a 6–7-inch OLED at a reading brightness (a panel's draw moves with brightness and content: a white page costs several times a dark one)"
	case pkg == "tablet":
		return 2, "assumed: about 2 W, an 11-inch panel at a reading brightness"
	case strings.HasPrefix(pkg, "laptop"):
		return 3, "assumed: about 3 W, a 13–16-inch laptop panel and its backlight at a reading brightness"
	case pkg == "car-cabin":
		return 0, "assumed: the cabin's screens are powered by the car, not by the module"
	}
	return 0, "assumed: a board or module drives no display of its own"
}
