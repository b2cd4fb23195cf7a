#!/usr/bin/env python3
"""Make the categorical palette of exporters/palette.cpp (`categories`): the fills of open-ended
keys (kernel families, compute, state roles) in the SVGs and the viewer.

A plan has 20 and more kernel families, so the palette must tell many categories apart, for
readers with normal vision and with red-green colour blindness, while dark labels stay readable on
every fill. It starts from Paul Tol's "light" qualitative scheme (Tol, "Colour Schemes", SRON
technical note SRON/EPS/TN/09-002, issue 3.2, 2021, fig. 5: made for cells carrying text; its
pale grey is left out, kbp's "none"), and extends it by Glasbey's greedy method (Glasbey, van der
Heijden, Toh, Gray, "Colour displays for categorical images", Color Research & Application 32(4),
2007): each next colour is the sRGB candidate farthest from all colours so far, measured as the
smallest CIEDE2000 difference under normal vision and the protanopia and deuteranopia simulations
of Machado, Oliveira and Fernandes ("A physiologically-based model for simulation of color vision
deficiency", IEEE TVCG 15(6), 2009; severity 1.0, linear RGB). The candidates are the sRGB grid in
steps of 17 with CIELAB lightness L* in [60, 92] and chroma at most 55 (dark text stays readable,
no fill shouts; the white canvas and "none"'s #f0f0f0 are kept apart as if chosen first). The
smallest difference is 7.9 among the first 12 colours, 5.7 among 21 and 5.2 among all 24 (the
ColorBrewer pastels it replaces came as close as 1.2).

tests/test_viewer_colours.cpp recomputes the same distances and fails when two colours come closer
than its threshold.

usage: scripts/palette.py [N]   prints N colours (default 24) as a C++ initializer
"""
import math
import sys

TOL_LIGHT = ["#77aadd", "#ee8866", "#eedd88", "#ffaabb", "#99ddff", "#44bb99", "#bbcc33", "#aaaa00"]
RESERVED = ["#ffffff", "#f0f0f0"]
L_MIN, L_MAX, C_MAX, STEP = 60.0, 92.0, 55.0, 17

# Machado et al. 2009, severity 1.0, on linear RGB.
SIMULATIONS = {
    "normal": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]],
}


def linear(c):
    c /= 255.0
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def lab(rgb, vision="normal"):
    r, g, b = (linear(x) for x in rgb)
    m = SIMULATIONS[vision]
    r, g, b = (min(1.0, max(0.0, m[i][0] * r + m[i][1] * g + m[i][2] * b)) for i in range(3))
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883
    f = lambda t: t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116
    fx, fy, fz = f(x), f(y), f(z)
    return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))


def ciede2000(p, q):
    (l1, a1, b1), (l2, a2, b2) = p, q
    cbar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(cbar**7 / (cbar**7 + 25**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    dh = 0.0
    if c1p * c2p:
        dh = h2p - h1p
        dh += -360 if dh > 180 else 360 if dh < -180 else 0
    d_l, d_c = l2 - l1, c2p - c1p
    d_h = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    lbar, cbarp = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        hbar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hbar = (h1p + h2p) / 2
    else:
        hbar = (h1p + h2p + (360 if h1p + h2p < 360 else -360)) / 2
    t = (1 - 0.17 * math.cos(math.radians(hbar - 30)) + 0.24 * math.cos(math.radians(2 * hbar))
         + 0.32 * math.cos(math.radians(3 * hbar + 6)) - 0.20 * math.cos(math.radians(4 * hbar - 63)))
    dtheta = 30 * math.exp(-(((hbar - 275) / 25) ** 2))
    rc = 2 * math.sqrt(cbarp**7 / (cbarp**7 + 25**7))
    sl = 1 + 0.015 * (lbar - 50) ** 2 / math.sqrt(20 + (lbar - 50) ** 2)
    sc, sh = 1 + 0.045 * cbarp, 1 + 0.015 * cbarp * t
    rt = -math.sin(math.radians(2 * dtheta)) * rc
    return math.sqrt((d_l / sl) ** 2 + (d_c / sc) ** 2 + (d_h / sh) ** 2 + rt * (d_c / sc) * (d_h / sh))


def hex_rgb(s):
    return tuple(int(s.lstrip("#")[i:i + 2], 16) for i in (0, 2, 4))


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 24
    candidates = []
    for r in range(0, 256, STEP):
        for g in range(0, 256, STEP):
            for b in range(0, 256, STEP):
                l_star, a_star, b_star = lab((r, g, b))
                if L_MIN <= l_star <= L_MAX and math.hypot(a_star, b_star) <= C_MAX:
                    candidates.append(((r, g, b), [lab((r, g, b), v) for v in SIMULATIONS]))
    nearest = [math.inf] * len(candidates)

    def take(rgb):
        labs = [lab(rgb, v) for v in SIMULATIONS]
        for i, (_, c) in enumerate(candidates):
            nearest[i] = min(nearest[i], min(ciede2000(c[k], labs[k]) for k in range(len(labs))))

    for s in RESERVED:
        take(hex_rgb(s))
    chosen = []
    for s in TOL_LIGHT:
        take(hex_rgb(s))
        chosen.append(s)
    while len(chosen) < n:
        best = max(range(len(candidates)), key=lambda i: nearest[i])
        rgb = candidates[best][0]
        chosen.append("#%02x%02x%02x" % rgb)
        take(rgb)
    for i in range(0, len(chosen), 8):
        print("    " + " ".join('"%s",' % c for c in chosen[i:i + 8]))


if __name__ == "__main__":
    main()
