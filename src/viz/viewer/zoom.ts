/**
 * The diagram zoom both pages (run viewer, explorer) share, as script text inlined into them. The
 * default, `region`, scales the diagram so the top-level region holding the active state fills
 * the pane, never below {@link MIN_REGION_ZOOM} of Graphviz's natural size (state labels stay
 * legible: 11 pt at 100% is ~15 px), and scrolls that region into view. `fit` shows the whole
 * machine, a percentage scales the natural size.
 */

/** The smallest zoom `region` picks: 11 pt labels render at about 11 px. */
export const MIN_REGION_ZOOM = 0.75;
/** The largest zoom `region` picks, so a small region is not blown up. */
export const MAX_REGION_ZOOM = 1.5;

/**
 * Defines `createZoom(svg, pane, select)` in the page's script scope. It returns
 * `{ apply(regionId, activeId), follow(activeId), factor() }`: `apply` lays the diagram out for
 * the select's value and brings the region (element id) and then the active element into view;
 * `follow` only scrolls the active element into view.
 */
export const ZOOM_SCRIPT = `
  const createZoom = (svg, pane, select) => {
    const box = svg.viewBox && svg.viewBox.baseVal;
    const naturalWidth = box && box.width ? box.width * 4 / 3 : svg.getBBox().width;
    const naturalHeight = box && box.height ? box.height * 4 / 3 : svg.getBBox().height;
    const unit = box && box.width ? naturalWidth / box.width : 4 / 3;
    svg.removeAttribute('width');
    svg.removeAttribute('height');
    let factor = 1;
    const size = (value) => {
      factor = value;
      svg.style.width = naturalWidth * value + 'px';
      svg.style.height = naturalHeight * value + 'px';
    };
    const centre = (element) => {
      if (!element) return;
      const frame = pane.getBoundingClientRect();
      const rect = element.getBoundingClientRect();
      pane.scrollLeft += rect.left + rect.width / 2 - (frame.left + frame.width / 2);
      pane.scrollTop += rect.top + rect.height / 2 - (frame.top + frame.height / 2);
    };
    const apply = (regionId, activeId) => {
      const region = regionId ? document.getElementById(regionId) : null;
      const active = activeId ? document.getElementById(activeId) : null;
      if (select.value === 'fit') {
        svg.style.width = '100%';
        svg.style.height = 'auto';
        factor = pane.clientWidth / naturalWidth;
        return;
      }
      if (select.value === 'region') {
        const target = region || active;
        if (target && target.getBBox) {
          const bbox = target.getBBox();
          const fitWidth = (pane.clientWidth - 24) / (bbox.width * unit);
          const fitHeight = (pane.clientHeight - 24) / (bbox.height * unit);
          size(Math.max(${MIN_REGION_ZOOM}, Math.min(${MAX_REGION_ZOOM}, fitWidth, fitHeight)));
          centre(target);
          // When the region is larger than the pane at the smallest legible zoom, follow the state.
          if (active && target !== active) {
            const frame = pane.getBoundingClientRect();
            const rect = active.getBoundingClientRect();
            if (rect.left < frame.left || rect.right > frame.right || rect.top < frame.top || rect.bottom > frame.bottom)
              centre(active);
          }
        } else size(Math.min(1, pane.clientWidth / naturalWidth));
        return;
      }
      size(Number(select.value));
      centre(active);
    };
    // Scrolls the element into the pane's middle when it is not fully visible.
    const follow = (activeId) => {
      const active = activeId ? document.getElementById(activeId) : null;
      if (!active || select.value === 'fit') return;
      const frame = pane.getBoundingClientRect();
      const rect = active.getBoundingClientRect();
      if (rect.left < frame.left || rect.right > frame.right || rect.top < frame.top || rect.bottom > frame.bottom)
        centre(active);
    };
    return { apply, follow, factor: () => factor };
  };
`;
