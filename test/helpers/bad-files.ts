/** Bad data files (issue 31, defect 5), for the preview's tests and the offline analyst's. */
export const BAD_FILES = {
  'malformed.csv': 'a,b,c\n1,2,3\n4,5,6\n7,8,9,10,11\n12,13,14\n',
  'binary.csv': new Uint8Array([
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 1, 2, 3,
  ]),
  'empty.csv': '',
  'header-only.csv': 'city,visits,share\n',
};
