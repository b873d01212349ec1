/**
 * Step ids are slugs of step names: lower-case, every run of characters outside `a-z0-9`
 * becomes `-`, trimmed of `-`, and `step` when nothing is left ("Gather facts" → `gather-facts`).
 */
export const slugify = (name: string): string => {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug === '' ? 'step' : slug;
};
