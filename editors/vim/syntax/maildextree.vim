" SPDX-License-Identifier: GPL-3.0-or-later
" A tree of messages: date, author, the thread's lines drawn, subject, (tags).
scriptencoding utf-8
if exists('b:current_syntax')
  finish
endif
syntax match maildexTreeDate '^.\{12}' nextgroup=maildexTreeAuthor skipwhite
syntax match maildexTreeAuthor '.\{-1,20}\ze ' contained
syntax match maildexTreeDrawing '[ │├╰┬─►]*►'
syntax match maildexTreeTags '([^()]*)$'
syntax match maildexTreeUnread '^.*(\%([^()]* \)\?unread\%( [^()]*\)\?)$' contains=maildexTreeDate,maildexTreeDrawing,maildexTreeTags
syntax match maildexTreeEnd '^End of search results\.$'
highlight default link maildexTreeDate Number
highlight default link maildexTreeAuthor Identifier
highlight default link maildexTreeDrawing Comment
highlight default link maildexTreeTags Type
highlight default link maildexTreeUnread Statement
highlight default link maildexTreeEnd Comment
let b:current_syntax = 'maildextree'
