/** One page of a list: its pre-rendered documents and the pagination block of the answer. */
export interface Pagination {
  total: number;
  offset: number;
  limit: number;
  has_more: boolean;
}

export interface Page {
  docs: string[];
  page: Pagination;
}

export function pagination(total: number, offset: number, limit: number, returned: number): Pagination {
  return { total, offset, limit, has_more: offset + returned < total };
}
