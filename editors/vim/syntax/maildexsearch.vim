" SPDX-License-Identifier: GPL-3.0-or-later
" A search list: date, [matched/total], authors, subject, (tags).
if exists('b:current_syntax')
  finish
endif
syntax match maildexSearchDate '^.\{12}' nextgroup=maildexSearchCount skipwhite
syntax match maildexSearchCount '\[\d\+/\d\+\]' contained
syntax match maildexSearchTags '([^()]*)$'
syntax match maildexSearchUnread '^.*(\%([^()]* \)\?unread\%( [^()]*\)\?)$' contains=maildexSearchDate,maildexSearchTags
syntax match maildexSearchEnd '^End of search results\.$'
highlight default link maildexSearchDate Number
highlight default link maildexSearchCount Comment
highlight default link maildexSearchTags Type
highlight default link maildexSearchUnread Statement
highlight default link maildexSearchEnd Comment
let b:current_syntax = 'maildexsearch'
