" SPDX-License-Identifier: GPL-3.0-or-later
" The steps of T600-vim on test/corpora/emacs (user Maildex Tester <tester@example.org>), run in this
" order by harness.vim in Vim and in Neovim, over each transport. Screens are compared with
" test/expected/vim/NAME.out; what the plugin changed is checked with `maildex` itself.

" :help maildex, from the help tags of the plugin's doc/ (a copy of editors/vim made by the test).
function! Step_00_help() abort
  execute 'helptags' fnameescape($MAILDEX_VIM_PLUGIN . '/doc')
  help maildex-search
  call assert_equal('maildex.txt', fnamemodify(bufname('%'), ':t'))
  call assert_match('\*maildex-search\*', getline('.'))
  helpclose
endfunction

" The start page: counts of the saved searches (and the config's query.lists) and of every tag.
function! Step_01_hello() abort
  Maildex
  " the parts arrive in any order: the page is complete when every count has come
  call Wait('getline(1) =~# "13 messages" && search("  lists$", "nw") > 0 && search("signed$", "nw") > 0'
        \ . ' && search("^ \\{9}  \\S", "nw") == 0')
  call AssertScreen('01-hello')
endfunction

" Enter on "inbox" lists its threads, newest first, as they stream in.
function! Step_02_search() abort
  call search('  inbox$')
  call Keys("\<CR>")
  call Wait('getline("$") ==# "End of search results."')
  call assert_equal('maildex://search/tag:inbox', bufname('%'))
  call AssertScreen('02-search-inbox')
endfunction

" Pages: with three lines a page only three are drawn until the user moves on; <Space> draws more.
function! Step_03_pages() abort
  let g:maildex_page_lines = 3
  Maildex *
  call Wait('exists("b:maildex_search") && b:maildex_search.done')
  call assert_equal(3, line('$'))
  call assert_equal(4, len(b:maildex_search.pending))
  call Keys("\<Space>")
  call assert_inrange(6, 8, line('$'))
  call Keys("\<Space>\<Space>\<Space>")
  call assert_equal(8, line('$'))
  call assert_equal('End of search results.', getline('$'))
  unlet g:maildex_page_lines
  call Keys('o')
  call Wait('getline("$") ==# "End of search results."')
  call assert_match('Garden party on Saturday', getline(1))
  call Keys('q')
endfunction

" A thread: header lines, indented replies, the long quote and the signature folded.
function! Step_04_thread() abort
  Maildex tag:inbox
  call Wait('getline("$") ==# "End of search results."')
  call search('Garden party')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call assert_equal('maildex://thread/' . matchstr(bufname('%'), '\x\{16}$'), bufname('%'))
  call AssertScreen('04-thread-garden')
  let l:citation = search('^ *>', 'nw')
  let l:folds = []
  for l:lnum in range(1, line('$'))
    if foldclosed(l:lnum) == l:lnum
      call add(l:folds, l:lnum . ': ' . foldtextresult(l:lnum))
    endif
  endfor
  call AssertLines('04-folds', l:folds)
endfunction

" n and p walk the messages; Enter folds a message to its header line and opens it again.
function! Step_05_navigate() abort
  call cursor(1, 1)
  call Keys('n')
  call assert_match('^ Bob Builder', getline('.'))
  call Keys('nn')
  call assert_match('Maildex Tester', getline('.'))
  call Keys('p')
  call assert_match('^  Carol', getline('.'))
  call Keys("\<CR>")
  call assert_equal(line('.'), foldclosed('.'))
  call Keys("\<CR>")
  call assert_equal(-1, foldclosed('.'))
endfunction

" Walking onto Carol's unread message marked it read, as notmuch.el does; u toggles it.
function! Step_06_unread() abort
  call search('^  Carol <')
  call Wait('getline(".") =~# "(inbox)$"')
  call assert_equal([], Maildex('search --output=messages tag:unread and id:garden-3@example.net'))
  call Keys('u')
  call Wait('getline(".") =~# "(inbox unread)$"')
  call assert_equal(['id:garden-3@example.net'], Maildex('search --output=messages tag:unread and id:garden-3@example.net'))
endfunction

" Tags from the thread (+ with its prompt), the list line updated in place when we go back.
function! Step_07_tag_thread() abort
  call search('^  Carol <')
  call Keys("+party later\<CR>")
  call Wait('getline(".") =~# "(inbox later party unread)$"')
  call assert_equal(['id:garden-3@example.net'], Maildex('search --output=messages tag:party and tag:later'))
  call Keys("-lat\<Tab>\<CR>")
  call Wait('getline(".") =~# "(inbox party unread)$"')
  call Keys('q')
  call assert_equal('maildex://search/tag:inbox', bufname('%'))
  call Wait('getline(".") =~# "(inbox party unread)$"')
  call assert_match('Garden party on Saturday (inbox party unread)$', getline('.'))
endfunction

" From the list: + on a line, a on a line (archive: -inbox), u, and the lines change in place.
function! Step_08_tag_list() abort
  call search('Spring newsletter')
  call Keys("+news\<CR>")
  call Wait('getline(".") =~# "(inbox news unread)$"')
  call assert_equal(['thread:' . b:maildex_search.items[line('.') - 1].thread],
        \ Maildex('search --output=threads tag:news'))
  call Keys('u')
  call Wait('getline(".") =~# "(inbox news)$"')
  call Keys('a')
  call Wait('getline(line(".") - 1) =~# "(news)$"')
  call assert_equal([], Maildex('search --output=threads tag:news and tag:inbox'))
  call AssertScreen('08-search-tagged')
endfunction

" The HTML alternative is a hidden button; Enter shows it through the converter.
function! Step_09_html() abort
  Maildex tag:news
  call Wait('getline("$") ==# "End of search results."')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call search('text/html (hidden)')
  call Keys("\<CR>")
  call Wait('search("HTML edition", "nw") > 0')
  call AssertScreen('09-thread-html')
  call Keys('q')
endfunction

" The PDF's button; s asks where to save it, and the file holds the attachment's bytes.
function! Step_10_attachment() abort
  Maildex tag:attachment
  call Wait('getline("$") ==# "End of search results."')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call AssertScreen('10-thread-attachment')
  call search('minutes.pdf')
  let l:path = $MAILDEX_VIM_OUT . '/saved.pdf'
  call Keys("s\<C-u>" . l:path . "\<CR>")
  call Wait('getfsize($MAILDEX_VIM_OUT . "/saved.pdf") == getfsize($MAILDEX_VIM_CORPUS . "/minutes.pdf")')
  call assert_equal(readfile($MAILDEX_VIM_CORPUS . '/minutes.pdf', 'B'), readfile(l:path, 'B'))
  call Keys('q')
endfunction

" The signed message says whose signature it is; the encrypted one is decrypted (the test's keys).
function! Step_11_signed() abort
  Maildex tag:signed
  call Wait('getline("$") ==# "End of search results."')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call AssertScreen('11-thread-signed')
  call Keys('q')
  Maildex tag:encrypted
  call Wait('getline("$") ==# "End of search results."')
  call Keys("\<CR>")
  call Wait('getline(1) =~# "(encrypted inbox)$"')
  call AssertScreen('11-thread-encrypted')
  call Keys('q')
endfunction

" Reply to all from the thread: the headers maildex reply gives, the quote, sent through the mock
" sendmail, the copy filed with maildex insert in sent/ (tagged sent), the original tagged replied.
function! Step_12_reply() abort
  Maildex id:minutes-2@example.org
  call Wait('getline("$") ==# "End of search results."')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call search('^ Alice Example')
  call Keys('R')
  call Wait('&filetype ==# "mail.maildexcompose"')
  call AssertScreen('12-reply')
  call Keys("GoSee you there.\<Esc>")
  call Keys("\<C-c>\<C-c>")
  call Wait('len(Maildex("search --output=files folder:sent and subject:minutes")) == 1')
  let l:sent = readfile(glob($MAILDEX_VIM_OUT . '/sent-*.eml', 0, 1)[0])
  call assert_equal(['-t -oi'], readfile(glob($MAILDEX_VIM_OUT . '/sent-*.args', 0, 1)[0]))
  call assert_notequal(-1, index(l:sent, 'Subject: Re: Minutes of the meeting'))
  call assert_notequal(-1, index(l:sent, 'In-Reply-To: <minutes-2@example.org>'))
  call assert_notequal(-1, index(l:sent, 'See you there.'))
  call Wait('Maildex("search --output=messages tag:replied and id:minutes-2@example.org") == ["id:minutes-2@example.org"]')
  let l:filed = Maildex('search --output=messages tag:sent and folder:sent and subject:minutes and not tag:inbox')
  call assert_equal(1, len(l:filed))
  call assert_equal(l:sent, readfile(Maildex('search --output=files ' . l:filed[0])[0]))
endfunction

" A new message: the To line completes from maildex address, non-ASCII headers are encoded.
function! Step_13_compose() abort
  MaildexCompose
  call Wait('&filetype ==# "mail.maildexcompose"')
  call Wait('maildex#address#ready()')
  call assert_equal('To: ', getline(2))
  call Keys("Aali\<C-x>\<C-o>\<Esc>")
  call assert_equal('To: Alice Example <alice@example.org>', getline(2))
  call Keys("4GA Grüße aus Köln\<Esc>Go Tschüß\<Esc>")
  call Keys(":MaildexSend\<CR>")
  call Wait('len(Maildex("search --output=files folder:sent and subject:Köln")) == 1')
  let l:file = Maildex('search --output=files folder:sent and subject:Köln')
  call assert_equal(['Grüße aus Köln'],
        \ map(Maildex('show --format=json folder:sent and subject:Köln'), 'json_decode(v:val)[0][0][0].headers.Subject'))
  call assert_equal(['Maildex Tester <tester@example.org>	Alice Example <alice@example.org>'],
        \ map(Maildex('show --format=json folder:sent and subject:Köln'),
        \ 'json_decode(v:val)[0][0][0].headers.From . "\t" . json_decode(v:val)[0][0][0].headers.To'))
  call assert_match('^Subject: =?UTF-8?Q?Gr=C3=BC=C3=9Fe_aus_K=C3=B6ln?=$',
        \ readfile(l:file[0])[index(map(readfile(l:file[0]), 'v:val =~# "^Subject:"'), 1)])
endfunction

" A command that fails: its argv and message in the one error buffer.
function! Step_14_errors() abort
  call maildex#error#clear()
  Maildex and
  call Wait('getline("$") =~# "^The search failed"')
  MaildexErrors
  call assert_equal('maildex://errors', bufname('%'))
  call assert_match("^\\d\\d:\\d\\d:\\d\\d maildex search --format=json --format-version=5 --sort=newest-first and failed (exit status 1):$", getline(1))
  call assert_match('^    ', getline(2))
endfunction

" New mail while a list is open: the list refreshes itself (revision polling, or the server's events).
function! Step_15_refresh() abort
  let g:maildex_poll_interval = 100
  Maildex tag:inbox
  call Wait('getline("$") ==# "End of search results."')
  call Wait('maildex#poll#revision() !=# ""')
  call system('maildex insert --folder=lists/dev', readfile($MAILDEX_VIM_CORPUS . '/later/1000000014.dev3', 'b'))
  call Wait('search("Dave Developer, Erin", "nw") > 0 && getline(search("The build is broken", "nw")) =~# "\\[3/3\\]"', 5000)
  let g:maildex_poll_interval = 0
endfunction

" f forwards the message at the cursor: its headers and text inline, the subject as notmuch.el's.
function! Step_17_forward() abort
  Maildex tag:attachment
  call Wait('getline("$") ==# "End of search results."')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call Keys('f')
  call Wait('&filetype ==# "mail.maildexcompose"')
  call assert_equal('Subject: [Bob Builder] Minutes of the meeting', getline(4))
  call assert_notequal(0, search('^The minutes are attached\.$', 'nw'))
  call assert_notequal(0, search('^\[ minutes\.pdf: application/pdf (737 bytes) \]$', 'nw'))
  bwipeout!
endfunction

" g:maildex_html_command: the HTML part goes through the converter as a job, and is drawn when done.
function! Step_18_html_command() abort
  let g:maildex_html_command = ['sed', '-e', 's/<[^>]*>//g', '-e', 's/Spring/Autumn/']
  Maildex tag:news
  call Wait('getline("$") ==# "End of search results."')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call search('text/html (hidden)')
  call Keys("\<CR>")
  call Wait('search("^Autumn is here: the HTML edition\\.$", "nw") > 0')
  unlet g:maildex_html_command
endfunction
