" SPDX-License-Identifier: GPL-3.0-or-later
" T600 on a store bench/gen makes (thousands of threads, far more than a screen): a list and a tree
" draw their first screen from the first lines of the result, before the rest is read, and decode
" and read no more than that screen until the user moves on. Asserted by the order of the plugin's
" events and by counts of its work, never by the clock (bench/vim-first-screen times it).

" :Maildex *: b:maildex_search.events holds [event, lines received, lines decoded] in order.
function! Step_16_first_screen() abort
  let l:threads = str2nr(Maildex("count --output=threads '*'")[0])
  call assert_inrange(1000, 100000, l:threads)
  Maildex *
  let l:screen = winheight(0)
  call Wait('b:maildex_search.done', 30000)
  let l:events = b:maildex_search.events
  call assert_equal(['first_screen', 'finished'], map(copy(l:events), 'v:val[0]'))
  " the first screen was drawn when its own lines had come and been decoded, no more
  call assert_equal(['first_screen', l:screen, l:screen], l:events[0])
  " then everything was read, and nothing more decoded while the cursor stayed on the first page
  call assert_equal(l:threads, l:events[1][1])
  call assert_true(l:events[1][2] <= max([&lines, 50]), 'decoded by the end: ' . l:events[1][2])
  call assert_equal(l:threads, len(b:maildex_search.items) + len(b:maildex_search.pending))
  " paging through reaches the end, drawing every thread
  let l:presses = 0
  while getline('$') !=# 'End of search results.' && l:presses < 1000
    call Keys("\<Space>")
    let l:presses += 1
  endwhile
  call assert_equal(l:threads + 1, line('$'))
  call maildex#search#close()
endfunction

" :MaildexTree *: the messages of the first threads only are read (one `show` of a screen of
" threads), while the search's other threads wait undecoded; G reads and draws them all.
function! Step_17_tree_first_screen() abort
  let l:messages = str2nr(Maildex("count '*'")[0])
  let g:maildex_page_lines = 30
  MaildexTree *
  let l:screen = min([30, winheight(0)])
  call Wait('b:maildex_tree.done && b:maildex_tree.show == 0 && len(b:maildex_tree.rows) >= ' . l:screen, 30000)
  let l:threads = str2nr(Maildex("count --output=threads '*'")[0])
  call assert_equal(l:screen, len(uniq(sort(map(copy(b:maildex_tree.rows), 'v:val.thread')))), 'threads read')
  call assert_equal(l:threads - l:screen, len(b:maildex_tree.pending), 'threads left undecoded')
  call assert_equal(len(b:maildex_tree.rows), line('$'))
  unlet g:maildex_page_lines
  call Keys('G')
  call Wait('getline("$") ==# "End of search results."', 120000)
  call assert_equal(l:messages, len(b:maildex_tree.rows))
  call assert_equal(line('$'), line('.'))
  call maildex#tree#close()
endfunction
